import type { StopReason } from '../core/stop-reason.js';
import type { RunObservation } from './run-observation.js';

/** Prices per million tokens, to turn token counts into money. */
export interface TokenPrice {
  readonly inputPerMillion: number;
  readonly outputPerMillion: number;
  /** Shown next to amounts, e.g. `USD`. */
  readonly currency?: string;
}

/**
 * The numbers worth watching, in pairs: completion with mean steps and
 * cost (a detour looks like success), hand-offs with gate denials (a gate
 * opened up looks like fewer hand-offs). Rates are 0-1; a value is
 * undefined when nothing was observed to compute it from.
 */
export interface AgentMetrics {
  readonly runs: number;
  readonly stopReasons: Readonly<Partial<Record<StopReason, number>>>;
  /** Runs that ended with an answer (`completed`) / runs. */
  readonly completionRate: number | undefined;
  readonly meanSteps: number | undefined;
  /** Runs handed to a person because a tool kept failing (`tool_failures`) / runs. */
  readonly handOffRate: number | undefined;
  readonly p50LatencyMs: number | undefined;
  /** End-to-end run duration, nearest-rank 95th percentile. */
  readonly p95LatencyMs: number | undefined;
  /** Input + output tokens per run. */
  readonly meanTokens: number | undefined;
  readonly meanInputTokens: number | undefined;
  readonly meanOutputTokens: number | undefined;
  /** Mean cost per run, when a price is given. */
  readonly costPerTask: number | undefined;
  readonly currency: string | undefined;
  /** How many runs carried tool-level data (events or a trace); the tool rates below cover only those. */
  readonly runsWithToolData: number;
  readonly toolCalls: number | undefined;
  /** Calls that ran and returned a result / calls proposed. */
  readonly toolSuccessRate: number | undefined;
  /** Calls identical to an earlier call of the same run / calls proposed. */
  readonly repeatedCallRate: number | undefined;
  /** Calls the gate refused, a person rejected, or no approval allowed. */
  readonly gateDenials: number | undefined;
  readonly approvalsRequired: number | undefined;
}

/**
 * Computes the agent's metrics over a set of finished runs.
 *
 * @example
 * const metrics = computeMetrics(runs, { price: { inputPerMillion: 0.15, outputPerMillion: 0.6, currency: 'USD' } });
 * metrics.completionRate; // 0.8
 */
export function computeMetrics(runs: readonly RunObservation[], { price }: { price?: TokenPrice } = {}): AgentMetrics {
  const count = runs.length;
  const stopReasons: Partial<Record<StopReason, number>> = {};
  for (const run of runs) stopReasons[run.stopReason] = (stopReasons[run.stopReason] ?? 0) + 1;
  const share = (predicate: (run: RunObservation) => boolean) =>
    count === 0 ? undefined : runs.filter(predicate).length / count;
  const durations = runs.map((run) => run.durationMs).sort((left, right) => left - right);
  const withTools = runs.flatMap((run) => (run.tools === undefined ? [] : [run.tools]));
  const toolCalls = sum(withTools.map((tools) => tools.calls));
  const hasTools = withTools.length > 0;
  const costs = price === undefined ? undefined : runs.map((run) => costOf(run, price));
  return {
    runs: count,
    stopReasons,
    completionRate: share((run) => run.stopReason === 'completed'),
    meanSteps: mean(runs.map((run) => run.steps)),
    handOffRate: share((run) => run.stopReason === 'tool_failures'),
    p50LatencyMs: percentile(durations, 0.5),
    p95LatencyMs: percentile(durations, 0.95),
    meanTokens: mean(runs.map((run) => run.inputTokens + run.outputTokens)),
    meanInputTokens: mean(runs.map((run) => run.inputTokens)),
    meanOutputTokens: mean(runs.map((run) => run.outputTokens)),
    costPerTask: costs === undefined ? undefined : mean(costs),
    currency: price?.currency,
    runsWithToolData: withTools.length,
    toolCalls: hasTools ? toolCalls : undefined,
    toolSuccessRate: toolCalls === 0 ? undefined : sum(withTools.map((tools) => tools.succeeded)) / toolCalls,
    repeatedCallRate: toolCalls === 0 ? undefined : sum(withTools.map((tools) => tools.repeated)) / toolCalls,
    gateDenials: hasTools ? sum(withTools.map((tools) => tools.gateDenials)) : undefined,
    approvalsRequired: hasTools ? sum(withTools.map((tools) => tools.approvalsRequired)) : undefined,
  };
}

/**
 * The nearest-rank percentile of values sorted ascending.
 *
 * @example
 * percentile([10, 20, 30, 40], 0.95); // 40
 */
export function percentile(sorted: readonly number[], fraction: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = Math.max(1, Math.ceil(fraction * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1];
}

function costOf(run: RunObservation, price: TokenPrice): number {
  return (run.inputTokens * price.inputPerMillion + run.outputTokens * price.outputPerMillion) / 1_000_000;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function mean(values: readonly number[]): number | undefined {
  return values.length === 0 ? undefined : sum(values) / values.length;
}
