import type { AgentMetrics } from './compute-metrics.js';
import { formatPercent, renderTable } from './render-table.js';

/**
 * The metrics as a two-column table (Markdown, padded for a terminal).
 * Tool-level rows say `n/a` when no run carried tool data.
 *
 * @example
 * for (const line of formatMetricsTable(computeMetrics(runs))) console.log(line);
 */
export function formatMetricsTable(metrics: AgentMetrics): string[] {
  const number = (value: number | undefined, digits = 1) => (value === undefined ? 'n/a' : value.toFixed(digits));
  const milliseconds = (value: number | undefined) => (value === undefined ? 'n/a' : `${Math.round(value)} ms`);
  const stops = Object.entries(metrics.stopReasons)
    .sort(([, left], [, right]) => (right ?? 0) - (left ?? 0))
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ');
  const toolScope =
    metrics.runsWithToolData === metrics.runs || metrics.runsWithToolData === 0
      ? ''
      : ` (${metrics.runsWithToolData} of ${metrics.runs} runs traced)`;
  const rows: string[][] = [
    ['runs', String(metrics.runs)],
    ['stop reasons', stops === '' ? 'n/a' : stops],
    ['task completion rate', formatPercent(metrics.completionRate)],
    ['mean steps', number(metrics.meanSteps)],
    ['hand-off rate', formatPercent(metrics.handOffRate)],
    ['p50 latency', milliseconds(metrics.p50LatencyMs)],
    ['p95 latency', milliseconds(metrics.p95LatencyMs)],
    [
      'tokens per task',
      metrics.meanTokens === undefined
        ? 'n/a'
        : `${Math.round(metrics.meanTokens)} (in ${Math.round(metrics.meanInputTokens ?? 0)}, out ${Math.round(metrics.meanOutputTokens ?? 0)})`,
    ],
  ];
  if (metrics.costPerTask !== undefined) {
    rows.push(['cost per task', `${metrics.costPerTask.toFixed(6)}${metrics.currency ? ` ${metrics.currency}` : ''}`]);
  }
  rows.push(
    [`tool calls${toolScope}`, metrics.toolCalls === undefined ? 'n/a (no trace)' : String(metrics.toolCalls)],
    ['tool success rate', formatPercent(metrics.toolSuccessRate)],
    ['repeated-call rate', formatPercent(metrics.repeatedCallRate)],
    ['gate denials', metrics.gateDenials === undefined ? 'n/a' : String(metrics.gateDenials)],
  );
  return renderTable({ columns: [{ heading: 'metric' }, { heading: 'value', align: 'right' }], rows });
}
