import type { AssistantMessage, ChatMessage, ToolMessage } from '../../core/chat-message.js';

/** Tools of the test conversations: `save_note` and `apply_refund` change something, the rest only read. */
export const writeTools: ReadonlySet<string> = new Set(['save_note', 'apply_refund']);
export const isWriteTool = (name: string) => writeTools.has(name);

/** One planned tool call of a test conversation: its tool and the size of its result. */
export interface PlannedCall {
  readonly tool: string;
  readonly resultChars: number;
}

/** A turn: the user's text, the tool batches the assistant ran, and its answer (absent while in progress). */
export interface PlannedTurn {
  readonly user: string;
  readonly batches: readonly (readonly PlannedCall[])[];
  readonly answer?: string;
  /**
   * In the last turn, leaves the last batch's last `unanswered` calls without a
   * tool message, and no answer (a run interrupted mid-batch).
   */
  readonly unanswered?: number;
}

/**
 * Builds a conversation from planned turns, with ids `call_<turn>_<batch>_<index>`
 * and results of the planned sizes.
 *
 * @example
 * buildConversation({ system: 'You help.', turns: [{ user: 'Hi', batches: [[{ tool: 'query_order', resultChars: 900 }]], answer: 'Done.' }] });
 */
export function buildConversation({ system, turns }: { system: string; turns: readonly PlannedTurn[] }): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: system }];
  turns.forEach((turn, turnIndex) => {
    messages.push({ role: 'user', content: turn.user });
    turn.batches.forEach((batch, batchIndex) => {
      const ids = batch.map((_, index) => `call_${turnIndex}_${batchIndex}_${index}`);
      const call: AssistantMessage = {
        role: 'assistant',
        content: null,
        tool_calls: batch.map((planned, index) => ({
          id: ids[index] as string,
          type: 'function' as const,
          function: {
            name: planned.tool,
            arguments: JSON.stringify({ order_id: `SO2026${turnIndex}${batchIndex}${index}` }),
          },
        })),
      };
      messages.push(call);
      const isLast = turnIndex === turns.length - 1 && batchIndex === turn.batches.length - 1;
      const answered = isLast ? batch.length - (turn.unanswered ?? 0) : batch.length;
      batch.slice(0, answered).forEach((planned, index) => {
        const result: ToolMessage = {
          role: 'tool',
          tool_call_id: ids[index] as string,
          content: JSON.stringify({ id: ids[index], data: 'r'.repeat(Math.max(0, planned.resultChars - 30)) }),
        };
        messages.push(result);
      });
    });
    const open = turnIndex === turns.length - 1 && turn.batches.length > 0 && (turn.unanswered ?? 0) > 0;
    if (turn.answer !== undefined && !open) messages.push({ role: 'assistant', content: turn.answer });
  });
  return messages;
}
