import { stopReasons } from '../core/stop-reason.js';
import type { AgentMetrics } from './compute-metrics.js';

/**
 * The metrics in the Prometheus text exposition format, for a `/metrics`
 * endpoint. Every series is a gauge over the runs the metrics were
 * computed from (a window, not a process lifetime), so none is a counter.
 * Series without data are left out rather than reported as zero.
 *
 * @example
 * app.get('/metrics', (c) => c.text(metricsToPrometheus(computeMetrics(collector.runs())).join('\n') + '\n'));
 */
export function metricsToPrometheus(metrics: AgentMetrics, { prefix = 'arbiter' }: { prefix?: string } = {}): string[] {
  const lines: string[] = [];
  const gauge = (name: string, help: string, samples: readonly [labels: string, value: number | undefined][]) => {
    const present = samples.filter((sample): sample is [string, number] => sample[1] !== undefined);
    if (present.length === 0) return;
    lines.push(`# HELP ${prefix}_${name} ${help}`, `# TYPE ${prefix}_${name} gauge`);
    for (const [labels, value] of present) lines.push(`${prefix}_${name}${labels} ${formatValue(value)}`);
  };
  gauge('runs', 'Runs observed.', [['', metrics.runs]]);
  gauge(
    'runs_by_stop_reason',
    'Runs observed, by stop reason.',
    stopReasons.map((reason) => [`{stop_reason="${reason}"}`, metrics.stopReasons[reason] ?? 0]),
  );
  gauge('task_completion_ratio', 'Runs that ended with an answer / runs.', [['', metrics.completionRate]]);
  gauge('steps_per_run', 'Mean model calls per run.', [['', metrics.meanSteps]]);
  gauge('handoff_ratio', 'Runs handed off to a person after repeated tool failures / runs.', [
    ['', metrics.handOffRate],
  ]);
  gauge('run_duration_seconds', 'End-to-end run duration, nearest-rank quantiles.', [
    ['{quantile="0.5"}', seconds(metrics.p50LatencyMs)],
    ['{quantile="0.95"}', seconds(metrics.p95LatencyMs)],
  ]);
  gauge('tokens_per_run', 'Mean tokens per run.', [
    ['{direction="input"}', metrics.meanInputTokens],
    ['{direction="output"}', metrics.meanOutputTokens],
  ]);
  gauge('cost_per_run', `Mean cost per run${metrics.currency ? ` in ${metrics.currency}` : ''}.`, [
    ['', metrics.costPerTask],
  ]);
  gauge('tool_calls', 'Tool calls proposed by the model.', [['', metrics.toolCalls]]);
  gauge('tool_success_ratio', 'Tool calls that ran and returned a result / tool calls.', [
    ['', metrics.toolSuccessRate],
  ]);
  gauge('repeated_call_ratio', 'Tool calls identical to an earlier call of the run / tool calls.', [
    ['', metrics.repeatedCallRate],
  ]);
  gauge('gate_denials', 'Tool calls refused by the gate or an approver.', [['', metrics.gateDenials]]);
  return lines;
}

function seconds(milliseconds: number | undefined): number | undefined {
  return milliseconds === undefined ? undefined : milliseconds / 1000;
}

function formatValue(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(6)));
}
