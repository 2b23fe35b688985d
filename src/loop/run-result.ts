import type { StopReason } from '../core/stop-reason.js';
import type { RunResult } from './run-agent.js';
import type { RunProgress } from './run-progress.js';
import type { RunRuntime } from './run-runtime.js';
import { totalUsage } from './total-usage.js';

/**
 * The run's result as it stands: stop reason, conversation, counters, and
 * the approvals it waits for when it stopped with `awaiting_approval`.
 *
 * @example
 * return runResult(runtime, progress, 'completed', performance.now() - progress.startedAt);
 */
export function runResult(
  runtime: RunRuntime,
  progress: RunProgress,
  stopReason: StopReason,
  durationMs: number,
): RunResult {
  return {
    runId: runtime.runId,
    stopReason,
    text: progress.lastText,
    messages: progress.conversation,
    newMessages: progress.conversation.slice(progress.firstNew),
    steps: progress.steps,
    usage: totalUsage(progress),
    durationMs,
    cost: runtime.prices === undefined ? undefined : progress.cost,
    lastSeq: runtime.emitter.lastSeq,
    pendingApprovals: stopReason === 'awaiting_approval' ? progress.pendingApprovals : [],
  };
}
