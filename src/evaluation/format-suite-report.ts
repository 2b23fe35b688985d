import { formatMetricsTable } from '../observe/format-metrics.js';
import { renderTable } from '../observe/render-table.js';
import type { BaselineComparison } from './baseline.js';
import type { SuiteReport } from './run-suite.js';

/**
 * The per-case table: one row per case with its verdict, stop reason,
 * model calls and tool calls. Nothing in it depends on timing or on token
 * estimates, so the same suite prints the same table (the docs hold a
 * copy); tokens per case are in the JSON report.
 *
 * @example
 * for (const line of formatCaseTable(report)) console.log(line);
 */
export function formatCaseTable(report: SuiteReport): string[] {
  return renderTable({
    columns: [
      { heading: 'case' },
      { heading: 'category' },
      { heading: 'result' },
      { heading: 'stop reason' },
      { heading: 'model calls', align: 'right' },
      { heading: 'tool calls', align: 'right' },
    ],
    rows: report.cases.map((result) => [
      result.id,
      result.category,
      result.passed ? 'pass' : 'FAIL',
      result.stopReason,
      String(result.modelCalls),
      String(result.toolCalls),
    ]),
  });
}

/**
 * The whole report: the case table, why each failing case failed, the
 * summary with the metrics of all runs, and, against a baseline, the cases
 * that changed verdict.
 *
 * @example
 * const lines = formatSuiteReport({ report, comparison, baselineFile: 'evals/shop/baseline.json' });
 */
export function formatSuiteReport({
  report,
  comparison,
  baselineFile,
}: {
  report: SuiteReport;
  comparison?: BaselineComparison;
  baselineFile?: string;
}): string[] {
  const lines = [`suite ${report.suite}`, '', ...formatCaseTable(report)];
  const failing = report.cases.filter((result) => !result.passed);
  if (failing.length > 0) {
    lines.push('', 'failures:');
    for (const result of failing) {
      lines.push(`  ${result.id}:`);
      for (const failure of result.failures) lines.push(`    - ${failure}`);
    }
  }
  lines.push(
    '',
    `summary: ${report.cases.length} cases, ${report.passed} passed, ${report.failed} failed`,
    '',
    ...formatMetricsTable(report.metrics),
  );
  if (comparison !== undefined) {
    lines.push(
      '',
      `against baseline${baselineFile === undefined ? '' : ` ${baselineFile}`}: ` +
        `${comparison.regressions.length} regression${comparison.regressions.length === 1 ? '' : 's'} (pass → fail), ` +
        `${comparison.fixes.length} fix${comparison.fixes.length === 1 ? '' : 'es'} (fail → pass)`,
    );
    for (const { id, failures } of comparison.regressions) {
      lines.push(`  regression ${id}: ${failures.join('; ')}`);
    }
    for (const id of comparison.fixes) lines.push(`  fixed ${id}`);
    for (const id of comparison.stillFailing) lines.push(`  still failing ${id}`);
    for (const id of comparison.added) lines.push(`  new case ${id} (not in the baseline)`);
    for (const id of comparison.missing) lines.push(`  missing case ${id} (in the baseline, not run)`);
  }
  return lines;
}
