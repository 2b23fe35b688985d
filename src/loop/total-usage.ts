import type { RunUsage } from '../core/run-usage.js';
import type { RunProgress } from './run-progress.js';

/**
 * The run's usage so far, with its total.
 *
 * @example
 * emitter.emit({ type: 'run:end', stopReason, steps, usage: totalUsage(progress), durationMs });
 */
export function totalUsage(progress: RunProgress): RunUsage {
  const { usage } = progress;
  // Built field by field: a spread here is measurably slower on Node 20, and this runs every step.
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cachedInputTokens: usage.cachedInputTokens,
    totalTokens: usage.inputTokens + usage.outputTokens,
  };
}
