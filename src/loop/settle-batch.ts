import type { AssistantMessage, ChatMessage, ToolCall } from '../core/chat-message.js';
import type { StopReason } from '../core/stop-reason.js';
import type { ModelResponse } from '../models/model.js';
import type { ToolSet } from '../tools/tool-registry.js';
import { commitStep } from './commit-step.js';
import { runBatch } from './run-batch.js';
import { budgetStop } from './run-budgets.js';
import type { RunProgress } from './run-progress.js';
import type { RunRuntime } from './run-runtime.js';
import { takeModelTurn } from './take-model-turn.js';

const emptyToolSet: ToolSet = { names: [], specs: [], get: () => undefined };

/**
 * Runs one turn's tool calls and commits their answers; returns why the run
 * must stop, if it must. After a repeated call the model gets one more turn,
 * without tools, to answer from what it has (inside the budgets); after a
 * tool failed too often in a row, the run hands off to a person. Rethrows a
 * batch's infrastructure failure once its answers are committed.
 *
 * @example
 * const stop = await settleBatch(runtime, progress, calls, tools);
 * if (stop !== undefined) return await finishRun(runtime, progress, stop);
 */
export async function settleBatch(
  runtime: RunRuntime,
  progress: RunProgress,
  calls: readonly ToolCall[],
  tools: ToolSet,
): Promise<StopReason | undefined> {
  const { control, texts } = runtime;
  const batch = await runBatch(runtime, tools, calls, progress.steps);
  if (batch.stop === 'awaiting_approval') {
    progress.pendingApprovals = batch.pendingApprovals ?? [];
    return batch.stop;
  }
  await commitStep(runtime, progress, batch.messages, { rerunnable: batch.rerunnable && batch.failure === undefined });
  if (batch.failure !== undefined) throw batch.failure;
  if (batch.stop === 'repeated_call' && control.reason === undefined && budgetStop(runtime, progress) === undefined) {
    progress.steps += 1;
    let answer: ModelResponse;
    try {
      answer = await takeModelTurn(runtime, progress, emptyToolSet);
    } catch (error) {
      if (control.reason !== undefined) return control.reason;
      throw error;
    }
    const unanswered = answer.message.tool_calls ?? [];
    if (unanswered.length > 0) {
      await commitStep(
        runtime,
        progress,
        unanswered.map(
          (call): ChatMessage => ({
            role: 'tool',
            tool_call_id: call.id,
            content: texts.skipped({ reason: 'repeated_call' }),
          }),
        ),
      );
    }
  }
  if (batch.stop === 'tool_failures') {
    const handoff: AssistantMessage = { role: 'assistant', content: texts.handoff() };
    await commitStep(runtime, progress, [handoff]);
    progress.lastText = handoff.content ?? undefined;
  }
  return batch.stop;
}
