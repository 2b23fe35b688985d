import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stopReasons } from '../core/stop-reason.js';
import { computeMetrics, percentile } from './compute-metrics.js';
import { formatMetricsTable } from './format-metrics.js';
import { metricsToPrometheus } from './prometheus-metrics.js';
import type { RunObservation } from './run-observation.js';

function run(overrides: Partial<RunObservation> = {}): RunObservation {
  return {
    runId: `run-${Math.random()}`,
    model: 'scripted',
    stopReason: 'completed',
    steps: 2,
    inputTokens: 100,
    outputTokens: 20,
    durationMs: 10,
    startedAt: 0,
    tools: { calls: 2, succeeded: 2, repeated: 0, gateDenials: 0, approvalsRequired: 0 },
    ...overrides,
  };
}

const sample: RunObservation[] = [
  run({ steps: 3, durationMs: 40 }),
  run({ durationMs: 10, tools: { calls: 3, succeeded: 1, repeated: 1, gateDenials: 1, approvalsRequired: 0 } }),
  run({
    stopReason: 'tool_failures',
    steps: 3,
    durationMs: 100,
    tools: { calls: 3, succeeded: 0, repeated: 2, gateDenials: 0, approvalsRequired: 0 },
  }),
  run({ stopReason: 'awaiting_approval', steps: 1, durationMs: 20, tools: undefined }),
];

describe('computeMetrics', () => {
  it('computes completion, steps, hand-offs, latency, tokens, cost and the tool rates', () => {
    const metrics = computeMetrics(sample, { price: { inputPerMillion: 1, outputPerMillion: 4, currency: 'USD' } });
    expect(metrics).toMatchObject({
      runs: 4,
      stopReasons: { completed: 2, tool_failures: 1, awaiting_approval: 1 },
      completionRate: 0.5,
      meanSteps: 2.25,
      handOffRate: 0.25,
      p50LatencyMs: 20,
      p95LatencyMs: 100,
      meanTokens: 120,
      runsWithToolData: 3,
      toolCalls: 8,
      toolSuccessRate: 3 / 8,
      repeatedCallRate: 3 / 8,
      gateDenials: 1,
    });
    expect(metrics.costPerTask).toBeCloseTo((100 * 1 + 20 * 4) / 1_000_000);
  });

  it('reports nothing rather than zero when there is nothing to compute from', () => {
    const metrics = computeMetrics([]);
    expect(metrics.completionRate).toBeUndefined();
    expect(metrics.p95LatencyMs).toBeUndefined();
    expect(metrics.toolSuccessRate).toBeUndefined();
    const withoutTools = computeMetrics([run({ tools: undefined })]);
    expect(withoutTools.toolCalls).toBeUndefined();
    expect(withoutTools.gateDenials).toBeUndefined();
    expect(formatMetricsTable(withoutTools).join('\n')).toMatch(/\| tool success rate +\| +n\/a \|/);
  });

  it('keeps every rate between 0 and 1 and p50 at or below p95, whatever the runs', () => {
    const observation = fc.record({
      runId: fc.string(),
      model: fc.constant('m'),
      stopReason: fc.constantFrom(...stopReasons),
      steps: fc.nat(50),
      inputTokens: fc.nat(100_000),
      outputTokens: fc.nat(100_000),
      durationMs: fc.double({ min: 0, max: 1e6, noNaN: true }),
      startedAt: fc.nat(),
      tools: fc.option(
        fc
          .record({ calls: fc.nat(20), succeeded: fc.nat(20), repeated: fc.nat(20), gateDenials: fc.nat(20) })
          .map(({ calls, succeeded, repeated, gateDenials }) => ({
            calls,
            succeeded: Math.min(succeeded, calls),
            repeated: Math.min(repeated, calls),
            gateDenials: Math.min(gateDenials, calls),
            approvalsRequired: 0,
          })),
        { nil: undefined },
      ),
    });
    fc.assert(
      fc.property(fc.array(observation, { maxLength: 40 }), (runs) => {
        const metrics = computeMetrics(runs);
        for (const rate of [
          metrics.completionRate,
          metrics.handOffRate,
          metrics.toolSuccessRate,
          metrics.repeatedCallRate,
        ]) {
          if (rate !== undefined) expect(rate >= 0 && rate <= 1).toBe(true);
        }
        if (runs.length > 0) expect(metrics.p50LatencyMs).toBeLessThanOrEqual(metrics.p95LatencyMs ?? 0);
        const counted = Object.values(metrics.stopReasons).reduce((sum, count) => sum + (count ?? 0), 0);
        expect(counted).toBe(runs.length);
      }),
    );
  });
});

describe('percentile', () => {
  it('takes the nearest rank', () => {
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.95)).toBe(10);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.5)).toBe(5);
    expect(percentile([7], 0.95)).toBe(7);
    expect(percentile([], 0.95)).toBeUndefined();
  });
});

describe('metricsToPrometheus', () => {
  it('exposes the metrics as gauges in the text format, leaving out series without data', () => {
    // Every known stop reason gets a series (zero included); the list grows with the enum, so only the observed are shown here.
    const lines = metricsToPrometheus(computeMetrics(sample)).filter((line) => !/_by_stop_reason\{.*\} 0$/.test(line));
    expect(lines.join('\n')).toMatchInlineSnapshot(`
      "# HELP arbiter_runs Runs observed.
      # TYPE arbiter_runs gauge
      arbiter_runs 4
      # HELP arbiter_runs_by_stop_reason Runs observed, by stop reason.
      # TYPE arbiter_runs_by_stop_reason gauge
      arbiter_runs_by_stop_reason{stop_reason="completed"} 2
      arbiter_runs_by_stop_reason{stop_reason="tool_failures"} 1
      arbiter_runs_by_stop_reason{stop_reason="awaiting_approval"} 1
      # HELP arbiter_task_completion_ratio Runs that ended with an answer / runs.
      # TYPE arbiter_task_completion_ratio gauge
      arbiter_task_completion_ratio 0.5
      # HELP arbiter_steps_per_run Mean model calls per run.
      # TYPE arbiter_steps_per_run gauge
      arbiter_steps_per_run 2.25
      # HELP arbiter_handoff_ratio Runs handed off to a person after repeated tool failures / runs.
      # TYPE arbiter_handoff_ratio gauge
      arbiter_handoff_ratio 0.25
      # HELP arbiter_run_duration_seconds End-to-end run duration, nearest-rank quantiles.
      # TYPE arbiter_run_duration_seconds gauge
      arbiter_run_duration_seconds{quantile="0.5"} 0.02
      arbiter_run_duration_seconds{quantile="0.95"} 0.1
      # HELP arbiter_tokens_per_run Mean tokens per run.
      # TYPE arbiter_tokens_per_run gauge
      arbiter_tokens_per_run{direction="input"} 100
      arbiter_tokens_per_run{direction="output"} 20
      # HELP arbiter_tool_calls Tool calls proposed by the model.
      # TYPE arbiter_tool_calls gauge
      arbiter_tool_calls 8
      # HELP arbiter_tool_success_ratio Tool calls that ran and returned a result / tool calls.
      # TYPE arbiter_tool_success_ratio gauge
      arbiter_tool_success_ratio 0.375
      # HELP arbiter_repeated_call_ratio Tool calls identical to an earlier call of the run / tool calls.
      # TYPE arbiter_repeated_call_ratio gauge
      arbiter_repeated_call_ratio 0.375
      # HELP arbiter_gate_denials Tool calls refused by the gate or an approver.
      # TYPE arbiter_gate_denials gauge
      arbiter_gate_denials 1"
    `);
  });
});
