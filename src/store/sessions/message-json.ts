import type { ChatMessage } from '../../core/chat-message.js';

/**
 * `JSON.stringify(message)`, the same text, written directly for the two
 * messages every tool-calling step stores: the assistant's answer with its
 * tool calls (no text) and a tool's result. Anything else, or anything
 * these two could hold that `JSON.stringify` would write differently (a
 * key more, fewer or in another order, a value of another type, an object
 * that is not a plain one, a `toJSON`), goes to `JSON.stringify`.
 *
 * Why (issue 48): V8's `JSON.stringify` walks each object generically,
 * asking every one for `toJSON` and looking up each property through its
 * map, about 8k instructions for one of these messages, twice per durable
 * step; here the keys and the punctuation are constants and only the
 * strings are quoted (`quote`: as they are when nothing needs escaping,
 * else by `JSON.stringify` of the string, so the escapes are V8's own).
 *
 * @example
 * messageJson({ role: 'tool', tool_call_id: 'call_1', content: '{"ok":true}' });
 * // '{"role":"tool","tool_call_id":"call_1","content":"{\"ok\":true}"}'
 */
export function messageJson(message: ChatMessage): string {
  return toolResultJson(message) ?? toolCallsJson(message) ?? JSON.stringify(message);
}

/** Longest text `quote` checks itself; a longer one goes to `JSON.stringify`, whose scan is faster than this loop's. */
const checkedLength = 256;

/**
 * `JSON.stringify(text)`: a short text with nothing to escape (no quote,
 * backslash, control character or surrogate, paired or not) quoted as it
 * is. A call of `JSON.stringify`, or of a RegExp's `test`, costs V8 about
 * 1k instructions however short the text, this loop a few per character:
 * three of a tool call's four texts (its id, type and name) and a result's
 * call id need no escaping (issue 48).
 */
function quote(text: string): string {
  if (text.length > checkedLength) return JSON.stringify(text);
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)) {
      return JSON.stringify(text);
    }
  }
  return `"${text}"`;
}

/** Whether `value` is an object `JSON.stringify` writes as its own enumerable keys, exactly `keys` in this order. */
function isPlainWithKeys(value: unknown, keys: readonly string[]): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false;
  if ((value as { toJSON?: unknown }).toJSON !== undefined) return false;
  const own = Object.keys(value);
  if (own.length !== keys.length) return false;
  for (let index = 0; index < keys.length; index += 1) if (own[index] !== keys[index]) return false;
  return true;
}

const toolResultKeys = ['role', 'tool_call_id', 'content'] as const;
const toolCallsKeys = ['role', 'content', 'tool_calls'] as const;
const toolCallKeys = ['id', 'type', 'function'] as const;
const functionKeys = ['name', 'arguments'] as const;

/** `{"role":"tool","tool_call_id":…,"content":…}`, or undefined for any other message. */
function toolResultJson(message: ChatMessage): string | undefined {
  if (message.role !== 'tool' || !isPlainWithKeys(message, toolResultKeys)) return undefined;
  // Read once each, as `JSON.stringify` reads them.
  const id: unknown = message.tool_call_id;
  const content: unknown = message.content;
  if (typeof id !== 'string' || typeof content !== 'string') return undefined;
  return `{"role":"tool","tool_call_id":${quote(id)},"content":${quote(content)}}`;
}

/** `{"role":"assistant","content":null,"tool_calls":[…]}`, or undefined for any other message. */
function toolCallsJson(message: ChatMessage): string | undefined {
  if (message.role !== 'assistant' || !isPlainWithKeys(message, toolCallsKeys)) return undefined;
  const content: unknown = message.content;
  const calls: unknown = message.tool_calls;
  if (content !== null || !Array.isArray(calls) || Object.getPrototypeOf(calls) !== Array.prototype) return undefined;
  if ((calls as { toJSON?: unknown }).toJSON !== undefined) return undefined;
  let text = '{"role":"assistant","content":null,"tool_calls":[';
  for (let index = 0; index < calls.length; index += 1) {
    const call: unknown = calls[index];
    if (!isPlainWithKeys(call, toolCallKeys)) return undefined;
    const id: unknown = call.id;
    const type: unknown = call.type;
    const named: unknown = call.function;
    if (typeof id !== 'string' || typeof type !== 'string' || !isPlainWithKeys(named, functionKeys)) return undefined;
    const name: unknown = named.name;
    const input: unknown = named.arguments;
    if (typeof name !== 'string' || typeof input !== 'string') return undefined;
    text += `${index === 0 ? '' : ','}{"id":${quote(id)},"type":${quote(type)},"function":{"name":${quote(name)},"arguments":${quote(input)}}}`;
  }
  return `${text}]}`;
}
