import type { ChatMessage } from '../core/chat-message.js';
import type { ToolSet } from '../tools/tool-registry.js';
import { redact, redactedMarker } from '../util/redact.js';

/** Values shorter than this are not searched for in free text: too likely to match something else. */
const shortestScrubbedValue = 4;

export interface RedactConversationOptions {
  readonly messages: readonly ChatMessage[];
  /** The sensitive fields of a tool (its definition's `sensitive`). See {@link sensitiveFieldsIn}. */
  readonly sensitiveFields?: (tool: string) => readonly string[];
  /** Fields redacted whichever tool they come from. */
  readonly fields?: readonly string[];
}

/**
 * A copy of a conversation fit to leave the live session (an export, a
 * `sessions show`, a log): in every tool call's arguments and every JSON
 * tool result, the values of the tool's sensitive fields (at any depth)
 * become `[redacted]`; those same values are then blanked wherever they
 * appear in other messages' text, so an assistant repeating a phone number
 * does not leak it either. The input is not changed.
 *
 * @example
 * redactConversation({ messages: session.messages, sensitiveFields: sensitiveFieldsIn(registry) });
 */
export function redactConversation({
  messages,
  sensitiveFields = () => [],
  fields = [],
}: RedactConversationOptions): ChatMessage[] {
  const toolNames = new Map<string, string>();
  const found = new Set<string>();
  const keysOf = (tool: string) => [...fields, ...sensitiveFields(tool)];
  const redactJson = (text: string, keys: readonly string[]): string => {
    if (keys.length === 0) return text;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return text;
    }
    collectValues(parsed, keys, found);
    return JSON.stringify(redact(parsed, keys));
  };

  const structured = messages.map((message): ChatMessage => {
    if (message.role === 'assistant' && message.tool_calls !== undefined) {
      return {
        ...message,
        tool_calls: message.tool_calls.map((call) => {
          toolNames.set(call.id, call.function.name);
          const keys = keysOf(call.function.name);
          return { ...call, function: { ...call.function, arguments: redactJson(call.function.arguments, keys) } };
        }),
      };
    }
    if (message.role === 'tool') {
      const keys = keysOf(toolNames.get(message.tool_call_id) ?? '');
      return { ...message, content: redactJson(message.content, keys) };
    }
    return message;
  });
  const values = [...found]
    .filter((value) => value.length >= shortestScrubbedValue)
    .sort((a, b) => b.length - a.length);
  if (values.length === 0) return structured;
  return structured.map((message): ChatMessage => {
    if (message.role === 'assistant') {
      return {
        ...message,
        content: message.content === null ? null : scrub(message.content, values),
        // A model's thinking may repeat what it read; a copy leaving the session is never sent back, so its signature may break.
        ...(message.thinking === undefined
          ? {}
          : { thinking: message.thinking.map((block) => ({ ...block, text: scrub(block.text, values) })) }),
        ...(message.tool_calls === undefined
          ? {}
          : {
              tool_calls: message.tool_calls.map((call) => ({
                ...call,
                function: { ...call.function, arguments: scrub(call.function.arguments, values) },
              })),
            }),
      };
    }
    return { ...message, content: scrub(message.content, values) };
  });
}

/**
 * The `sensitiveFields` lookup for a registry or tool set: each tool's
 * `sensitive` fields; none for a tool it does not know.
 *
 * @example
 * redactConversation({ messages, sensitiveFields: sensitiveFieldsIn(registry) });
 */
export function sensitiveFieldsIn(tools: Pick<ToolSet, 'get'>): (tool: string) => readonly string[] {
  return (tool) => tools.get(tool)?.definition.sensitive ?? [];
}

function collectValues(value: unknown, keys: readonly string[], into: Set<string>, inside = false): void {
  if (typeof value === 'string' || typeof value === 'number') {
    if (inside) into.add(String(value));
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) collectValues(item, keys, into, inside);
    return;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) collectValues(item, keys, into, inside || keys.includes(key));
  }
}

function scrub(text: string, values: readonly string[]): string {
  let result = text;
  for (const value of values) {
    if (value === redactedMarker) continue;
    result = result.split(value).join(redactedMarker);
    const encoded = JSON.stringify(value).slice(1, -1);
    if (encoded !== value) result = result.split(encoded).join(redactedMarker);
  }
  return result;
}
