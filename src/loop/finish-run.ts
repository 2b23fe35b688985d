import type { StopReason } from '../core/stop-reason.js';
import type { RunResult } from './run-agent.js';
import type { RunProgress } from './run-progress.js';
import { runResult } from './run-result.js';
import type { RunRuntime } from './run-runtime.js';
import { totalUsage } from './total-usage.js';

/**
 * Ends the run with a stop reason: commits the audit entries still waiting
 * (a failure there is the run's: it throws), then `run:end` with its
 * counters (and cost, when the run is priced), then the result.
 *
 * @example
 * if (calls.length === 0) return await finishRun(runtime, progress, 'completed');
 */
export async function finishRun(
  runtime: RunRuntime,
  progress: RunProgress,
  stopReason: StopReason,
): Promise<RunResult> {
  // Awaited only when the log flushes asynchronously: a synchronous flush (SQLite) takes no extra microtask turn.
  const flushing = runtime.audit?.flush?.();
  if (flushing !== undefined) await flushing;
  const durationMs = performance.now() - progress.startedAt;
  // `emit`, not `emitDraft`, for the events of a run's start and end: `emitDraft` writes the envelope into the
  // four shapes of event every step emits, which V8 then writes without a call, and a fifth shape (once per run)
  // would make those writes generic (about 2k instructions a step). Two literals: no spread of the cost.
  const { emitter } = runtime;
  const { steps } = progress;
  const usage = totalUsage(progress);
  if (runtime.prices === undefined) {
    emitter.emit({ type: 'run:end', stopReason, steps, usage, durationMs });
  } else {
    emitter.emit({ type: 'run:end', stopReason, steps, usage, durationMs, cost: progress.cost });
  }
  return runResult(runtime, progress, stopReason, durationMs);
}
