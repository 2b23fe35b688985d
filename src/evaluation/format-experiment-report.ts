import { renderTable } from '../observe/render-table.js';
import type { ErrorStyle } from './error-describer.js';
import type { ExperimentReport } from './error-message-experiment.js';

const styleNames: Readonly<Record<ErrorStyle, string>> = {
  full: 'full (arbiter)',
  field_only: 'field only',
  vague: '"Tool execution failed"',
};

/**
 * The experiment's two tables: per error style, how the broken calls ended
 * (share and count); then per kind of mistake, how many each style got
 * right. Deterministic: the scripted model and fresh data make every run
 * the same.
 *
 * @example
 * for (const line of formatExperimentReport(report)) console.log(line);
 */
export function formatExperimentReport(report: ExperimentReport): string[] {
  const cell = (count: number, total: number) =>
    total === 0 ? '0' : `${count} (${((count / total) * 100).toFixed(1)}%)`;
  const byStyle = renderTable({
    columns: [
      { heading: 'error style' },
      { heading: 'calls', align: 'right' },
      { heading: 'corrected in 1 round', align: 'right' },
      { heading: 'corrected in 2 rounds', align: 'right' },
      { heading: 'wrong fix', align: 'right' },
      { heading: 'asked the user', align: 'right' },
      { heading: 'gave up', align: 'right' },
      { heading: 'right outcome', align: 'right' },
    ],
    rows: report.styles.map((summary) => [
      styleNames[summary.style],
      String(summary.calls),
      cell(summary.outcomes.corrected_1, summary.calls),
      cell(summary.outcomes.corrected_2, summary.calls),
      cell(summary.outcomes.wrong_fix, summary.calls),
      cell(summary.outcomes.asked, summary.calls),
      cell(summary.outcomes.gave_up + summary.outcomes.not_broken, summary.calls),
      cell(summary.right, summary.calls),
    ]),
  });
  const kinds = [...new Set(report.rows.map((row) => row.kind))];
  const styles = report.styles.map((summary) => summary.style);
  const byKind = renderTable({
    columns: [
      { heading: 'kind of mistake' },
      { heading: 'calls', align: 'right' },
      ...styles.map((style) => ({ heading: styleNames[style], align: 'right' as const })),
    ],
    rows: kinds.map((kind) => {
      const rows = report.rows.filter((row) => row.kind === kind);
      const perStyle = styles.map((style) => rows.filter((row) => row.style === style));
      return [
        kind,
        String(perStyle[0]?.length ?? 0),
        ...perStyle.map((mine) => `${mine.filter((row) => row.right).length}/${mine.length}`),
      ];
    }),
  });
  return [
    `experiment ${report.name}: what the scripted model does after a broken call, by error style`,
    '',
    ...byStyle,
    '',
    'right outcome by kind of mistake (corrected with the right values, or asked when only the user knows):',
    '',
    ...byKind,
  ];
}
