import { ConfigurationError } from '../errors/configuration-error.js';
import { costOf } from '../models/pricing.js';
import { routeTools } from '../routing/route-tools.js';
import type { ToolSet } from '../tools/tool-registry.js';
import type { RunProgress } from './run-progress.js';
import type { RunRuntime } from './run-runtime.js';

/**
 * The tools a step sends: the mounted set as it is without the `routing`
 * option, else the routed subset (see `routeTools`), whose record
 * `takeModelTurn` puts on `model:end`. The router model's tokens (and cost,
 * when priced) count in the run's; a cost budget with an unpriced router
 * model is a `ConfigurationError`, as for the run's own model.
 *
 * @example
 * const tools = await routeStepTools(runtime, progress, mountTools(options, progress.steps));
 */
export async function routeStepTools(runtime: RunRuntime, progress: RunProgress, mounted: ToolSet): Promise<ToolSet> {
  const options = runtime.options.routing;
  if (options === undefined) return mounted;
  const step = await routeTools({
    tools: mounted,
    messages: progress.conversation,
    options,
    locale: runtime.locale,
    signal: runtime.control.signal,
  });
  if (step.usage !== undefined) {
    progress.usage.inputTokens += step.usage.inputTokens;
    progress.usage.outputTokens += step.usage.outputTokens;
    progress.usage.cachedInputTokens += step.usage.cachedInputTokens ?? 0;
    if (runtime.prices !== undefined && step.routerModel !== undefined) {
      const priced = costOf({ model: step.routerModel, usage: step.usage, prices: runtime.prices });
      if (priced === undefined && Number.isFinite(runtime.costBudget)) {
        throw new ConfigurationError({
          setting: 'routing.model',
          message: `no price for the router model ${step.routerModel} in the price table: limits.costBudget cannot be enforced`,
        });
      }
      progress.cost += priced?.total ?? 0;
    }
  }
  return step.tools;
}
