import type { ChatMessage } from '../../core/chat-message.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import type { LocalChatFunctions, LocalChatHistoryItem, LocalFunctionCall } from './local-runtime.js';

/**
 * arbiter's conversation as node-llama-cpp's chat history, ending with the
 * model turn to write: an assistant message's tool calls become function
 * calls whose results are the matching tool messages' text (the template
 * renders them in its own call and result syntax), and the model's next
 * words after calls continue that turn (an assistant message after tool
 * results joins it; a conversation that ends in tool results ends in it), as
 * the template expects, never an empty turn between. Each message's calls
 * start a new call section: the template renders them after the results of
 * the calls before, as they were written, not as calls made at once with
 * them. After a user message a new empty model turn is opened. System and
 * user messages stay as they are.
 *
 * @example
 * const history = toChatHistory({ messages: [{ role: 'user', content: 'hi' }] });
 * // [{ type: 'user', text: 'hi' }, { type: 'model', response: [] }]
 */
export function toChatHistory({ messages }: { messages: readonly ChatMessage[] }): LocalChatHistoryItem[] {
  const results = new Map<string, string>();
  for (const message of messages) {
    if (message.role === 'tool') results.set(message.tool_call_id, message.content);
  }
  const history: LocalChatHistoryItem[] = [];
  // The model turn that ends in calls: the template renders their results after it and the model goes on in
  // that same turn, so what it says next (more calls, or the answer) joins it instead of opening a new turn.
  let open: (string | LocalFunctionCall)[] | undefined;
  for (const message of messages) {
    if (message.role === 'system') {
      history.push({ type: 'system', text: message.content });
      open = undefined;
    } else if (message.role === 'user') {
      history.push({ type: 'user', text: message.content });
      open = undefined;
    } else if (message.role === 'assistant') {
      const response = open ?? [];
      if (open === undefined) history.push({ type: 'model', response });
      if (message.content !== null && message.content !== '') response.push(message.content);
      const calls = message.tool_calls ?? [];
      for (const [index, call] of calls.entries()) {
        response.push({
          type: 'functionCall',
          name: call.function.name,
          params: parseOrKeep(call.function.arguments),
          result: results.get(call.id) ?? '',
          // Calls of one message are parallel (one call section, then their results); the next message's calls
          // were written after those results, so they open a new section after them.
          ...(index === 0 ? { startsNewChunk: true } : {}),
        });
      }
      open = calls.length > 0 ? response : undefined;
    }
  }
  if (open === undefined) history.push({ type: 'model', response: [] });
  return history;
}

/**
 * The tool specs as node-llama-cpp's function definitions, so the chat
 * template lists them (name, description, JSON Schema of the parameters).
 *
 * @example
 * const functions = toChatFunctions({ tools: registry.specs() });
 */
export function toChatFunctions({ tools }: { tools: readonly ToolSpec[] }): LocalChatFunctions {
  const functions: Record<string, LocalChatFunctions[string]> = {};
  for (const tool of tools) {
    functions[tool.function.name] = {
      ...(tool.function.description === undefined ? {} : { description: tool.function.description }),
      params: tool.function.parameters,
    };
  }
  return functions;
}

function parseOrKeep(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
