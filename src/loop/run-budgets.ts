import type { StopReason } from '../core/stop-reason.js';
import type { RunProgress } from './run-progress.js';
import type { RunRuntime } from './run-runtime.js';

/**
 * Which budget, if any, leaves no room for another model call: the step
 * limit, then the token budget, then the cost budget.
 *
 * @example
 * const stop = budgetStop(runtime, progress);
 * if (stop !== undefined) return await finishRun(runtime, progress, stop);
 */
export function budgetStop(runtime: RunRuntime, progress: RunProgress): StopReason | undefined {
  if (progress.steps >= runtime.maxSteps) return 'max_steps';
  return spentBudget(runtime, progress);
}

/**
 * Which spending budget, if any, is used up: tokens, then money. Checked
 * after a model call too, so calls proposed past a budget are not run.
 *
 * @example
 * const spent = spentBudget(runtime, progress);
 * if (spent !== undefined) await answerNotRun(calls, spent);
 */
export function spentBudget(runtime: RunRuntime, progress: RunProgress): StopReason | undefined {
  const { usage } = progress;
  if (usage.inputTokens + usage.outputTokens >= runtime.tokenBudget) return 'token_budget';
  if (progress.cost >= runtime.costBudget) return 'cost_budget';
  return undefined;
}
