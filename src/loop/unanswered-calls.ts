import type { ChatMessage, ToolCall } from '../core/chat-message.js';

/**
 * The calls of the last assistant message that have no tool message yet (a run interrupted mid-batch).
 *
 * @example
 * const unanswered = unansweredCalls(conversation);
 * if (unanswered.length > 0) await runBatch(runtime, tools, unanswered, step);
 */
export function unansweredCalls(messages: readonly ChatMessage[]): readonly ToolCall[] {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message === undefined || message.role === 'tool') continue;
    if (message.role !== 'assistant' || message.tool_calls === undefined) return [];
    const answered = new Set(
      messages.slice(index + 1).flatMap((later) => (later.role === 'tool' ? [later.tool_call_id] : [])),
    );
    return message.tool_calls.filter((call) => !answered.has(call.id));
  }
  return [];
}
