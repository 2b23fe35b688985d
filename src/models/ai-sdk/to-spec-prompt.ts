import type { AssistantMessage, ChatMessage, ProviderMetadata } from '../../core/chat-message.js';
import { isRecord } from '../../util/is-record.js';
import type {
  SpecJsonObject,
  SpecJsonValue,
  SpecMessage,
  SpecProviderOptions,
  SpecReasoningPart,
  SpecTextPart,
  SpecToolCallPart,
  SpecToolResultPart,
} from './language-model-spec.js';

/**
 * arbiter's conversation as an AI SDK prompt:
 *
 * - the system messages that open it stay system messages; one further on
 *   (a compression summary) becomes a user message, as providers accept
 *   system text only at the start;
 * - an assistant message becomes its thinking blocks (each with the
 *   provider's metadata as `providerOptions`, so an Anthropic signature or
 *   a Gemini thought signature goes back unchanged), then its text, then
 *   its tool calls, each with its own metadata; arguments go as the JSON
 *   object they parse to (`{}` when the model wrote no object: the tool
 *   result that follows says what was wrong);
 * - consecutive tool messages become one tool message, each result named
 *   with the tool its call named, so parallel calls are answered in one turn.
 *
 * An assistant message with nothing to send (no text, thinking or calls) is
 * left out: providers reject empty assistant turns. `systemProviderOptions`
 * go on the last opening system message (a cache breakpoint there caches
 * the tools and the system prompt).
 *
 * @example
 * const prompt = toSpecPrompt([{ role: 'user', content: 'Where is SO20260901?' }]);
 * // [{ role: 'user', content: [{ type: 'text', text: 'Where is SO20260901?' }] }]
 */
export function toSpecPrompt(
  messages: readonly ChatMessage[],
  { systemProviderOptions }: { systemProviderOptions?: SpecProviderOptions | undefined } = {},
): SpecMessage[] {
  const prompt: SpecMessage[] = [];
  const toolNames = new Map<string, string>();
  let opening = true;
  for (const message of messages) {
    if (message.role !== 'system') opening = false;
    switch (message.role) {
      case 'system':
        prompt.push(
          opening
            ? { role: 'system', content: message.content }
            : { role: 'user', content: [{ type: 'text', text: message.content }] },
        );
        break;
      case 'user':
        prompt.push({ role: 'user', content: [{ type: 'text', text: message.content }] });
        break;
      case 'assistant': {
        for (const call of message.tool_calls ?? []) toolNames.set(call.id, call.function.name);
        const content = assistantParts(message);
        if (content.length > 0) prompt.push({ role: 'assistant', content });
        break;
      }
      case 'tool': {
        const part: SpecToolResultPart = {
          type: 'tool-result',
          toolCallId: message.tool_call_id,
          toolName: toolNames.get(message.tool_call_id) ?? 'unknown_tool',
          output: { type: 'text', value: message.content },
        };
        const last = prompt.at(-1);
        if (last?.role === 'tool') last.content.push(part);
        else prompt.push({ role: 'tool', content: [part] });
        break;
      }
    }
  }
  if (systemProviderOptions !== undefined) {
    const openingSystem = prompt.findIndex((message) => message.role !== 'system');
    const last = prompt[(openingSystem === -1 ? prompt.length : openingSystem) - 1];
    if (last?.role === 'system') last.providerOptions = systemProviderOptions;
  }
  return prompt;
}

function assistantParts(message: AssistantMessage): Array<SpecTextPart | SpecReasoningPart | SpecToolCallPart> {
  const parts: Array<SpecTextPart | SpecReasoningPart | SpecToolCallPart> = [];
  for (const block of message.thinking ?? []) {
    parts.push({ type: 'reasoning', text: block.text, ...providerOptions(block.provider_metadata) });
  }
  if (message.content !== null && message.content !== '') {
    parts.push({ type: 'text', text: message.content, ...providerOptions(message.provider_metadata) });
  }
  for (const call of message.tool_calls ?? []) {
    parts.push({
      type: 'tool-call',
      toolCallId: call.id,
      toolName: call.function.name,
      input: parseInput(call.function.arguments),
      ...providerOptions(call.provider_metadata),
    });
  }
  return parts;
}

function parseInput(text: string): SpecJsonObject {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? (jsonValue(value) as SpecJsonObject) : {};
  } catch {
    return {};
  }
}

/** Stored metadata as `providerOptions`: only JSON values survive (a session's JSON is all there is to send). */
function providerOptions(metadata: ProviderMetadata | undefined): { providerOptions?: SpecProviderOptions } {
  if (metadata === undefined) return {};
  const options: SpecProviderOptions = {};
  for (const [provider, fields] of Object.entries(metadata)) {
    const value = jsonValue(fields);
    if (isRecord(value))
      Object.defineProperty(options, provider, { value, enumerable: true, writable: true, configurable: true });
  }
  return Object.keys(options).length === 0 ? {} : { providerOptions: options };
}

/** The value as JSON: what is not (a function, a symbol) is left out, as `JSON.stringify` would. */
function jsonValue(value: unknown): SpecJsonValue | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (Array.isArray(value)) return value.map((item) => jsonValue(item) ?? null);
  if (!isRecord(value)) return undefined;
  const object: SpecJsonObject = {};
  for (const [key, field] of Object.entries(value)) {
    const converted = jsonValue(field);
    if (converted !== undefined)
      Object.defineProperty(object, key, { value: converted, enumerable: true, writable: true, configurable: true });
  }
  return object;
}
