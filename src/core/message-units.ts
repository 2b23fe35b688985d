import type { AssistantMessage, ChatMessage, ToolMessage } from './chat-message.js';

/**
 * Messages that must stay together: an assistant message with its
 * `tool_calls` and the tool messages answering them, or a single message.
 * Cutting inside a unit makes the next request invalid (a tool message
 * without its call, or a call without its answer).
 */
export interface MessageUnit {
  /** Index of the unit's first message in the conversation. */
  readonly start: number;
  readonly messages: readonly ChatMessage[];
}

/**
 * Groups a conversation into units: each assistant message that calls tools
 * takes the tool messages that answer it (wherever they follow, up to the
 * next non-tool message); every other message is a unit of its own.
 *
 * @example
 * groupMessageUnits([user, assistantWithTwoCalls, toolA, toolB, answer]).map((unit) => unit.messages.length);
 * // [1, 3, 1]
 */
export function groupMessageUnits(messages: readonly ChatMessage[]): MessageUnit[] {
  const units: MessageUnit[] = [];
  let index = 0;
  while (index < messages.length) {
    const message = messages[index] as ChatMessage;
    let end = index + 1;
    if (message.role === 'assistant' && (message.tool_calls?.length ?? 0) > 0) {
      while (end < messages.length && messages[end]?.role === 'tool') end += 1;
    }
    units.push({ start: index, messages: messages.slice(index, end) });
    index = end;
  }
  return units;
}

/**
 * The assistant message's tool call ids that no tool message in `answers` answers.
 *
 * @example
 * unansweredToolCallIds(assistantCallingAandB, [toolAnsweringA]); // ['b']
 */
export function unansweredToolCallIds(call: AssistantMessage, answers: readonly ChatMessage[]): string[] {
  const answered = new Set(answers.flatMap((message) => (message.role === 'tool' ? [message.tool_call_id] : [])));
  return (call.tool_calls ?? []).map((toolCall) => toolCall.id).filter((id) => !answered.has(id));
}

/**
 * True when `messages.slice(0, index)` is a conversation a model accepts:
 * the cut does not fall between an assistant message's tool calls and their
 * tool messages, and every tool call before it is answered before it.
 *
 * @example
 * isCleanCut([user, assistantWithCall, tool, answer], 2); // false: the call would lose its answer
 * isCleanCut([user, assistantWithCall, tool, answer], 3); // true
 */
export function isCleanCut(messages: readonly ChatMessage[], index: number): boolean {
  if (!Number.isInteger(index) || index < 0 || index > messages.length) return false;
  if (messages[index]?.role === 'tool') return false;
  const prefix = messages.slice(0, index);
  return groupMessageUnits(prefix).every((unit) => {
    const [head, ...rest] = unit.messages;
    if (head?.role === 'tool') return false;
    return head?.role !== 'assistant' || unansweredToolCallIds(head, rest).length === 0;
  });
}

/**
 * Checks that every tool call is answered by exactly one tool message that
 * follows it inside its unit, and that no tool message answers an unknown
 * call: the invariant compression and forks must keep. Returns the problems
 * found, empty when the conversation is well formed.
 *
 * @example
 * toolPairingProblems(compressed.messages); // []
 */
export function toolPairingProblems(
  messages: readonly ChatMessage[],
  { allowUnansweredTail = true }: { allowUnansweredTail?: boolean } = {},
): string[] {
  const problems: string[] = [];
  const units = groupMessageUnits(messages);
  units.forEach((unit, unitIndex) => {
    const [head, ...rest] = unit.messages;
    if (head === undefined) return;
    if (head.role === 'tool') {
      problems.push(`message ${unit.start}: tool message ${head.tool_call_id} follows no tool call`);
      return;
    }
    if (head.role !== 'assistant' || head.tool_calls === undefined) return;
    const ids = head.tool_calls.map((call) => call.id);
    const seen = new Map<string, number>();
    for (const tool of rest as ToolMessage[]) {
      if (!ids.includes(tool.tool_call_id))
        problems.push(`message ${unit.start}: tool message ${tool.tool_call_id} answers no call of its turn`);
      seen.set(tool.tool_call_id, (seen.get(tool.tool_call_id) ?? 0) + 1);
    }
    const isTail = unitIndex === units.length - 1;
    for (const id of ids) {
      const count = seen.get(id) ?? 0;
      if (count > 1) problems.push(`message ${unit.start}: call ${id} answered ${count} times`);
      if (count === 0 && !(isTail && allowUnansweredTail))
        problems.push(`message ${unit.start}: call ${id} has no answer`);
    }
  });
  return problems;
}
