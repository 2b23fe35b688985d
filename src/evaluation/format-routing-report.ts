import { renderTable } from '../observe/render-table.js';
import type { RoutingReport } from './routing-evaluation.js';

/**
 * The routing evaluation as a table (per locale, then all) and the requests
 * whose right tool was not in the first five, with what ranked first.
 *
 * @example
 * for (const line of formatRoutingReport(evaluateRouting({ set }))) console.log(line);
 */
export function formatRoutingReport(report: RoutingReport): string[] {
  const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
  const table = renderTable({
    columns: [
      { heading: 'requests' },
      { heading: 'count', align: 'right' },
      { heading: 'recall@1', align: 'right' },
      { heading: 'recall@3', align: 'right' },
      { heading: 'recall@5', align: 'right' },
      { heading: 'right tool sent', align: 'right' },
      { heading: 'no match: all sent', align: 'right' },
      { heading: 'tools sent', align: 'right' },
      { heading: 'tokens, all tools', align: 'right' },
      { heading: 'tokens, routed', align: 'right' },
      { heading: 'saved per step', align: 'right' },
    ],
    rows: report.summaries.map((summary) => [
      summary.label,
      String(summary.queries),
      percent(summary.recall[1]),
      percent(summary.recall[3]),
      percent(summary.recall[5]),
      percent(summary.sentRecall),
      String(summary.noMatch),
      summary.toolsPerStep.toFixed(1),
      String(summary.allTokensPerStep),
      summary.routedTokensPerStep.toFixed(0),
      `${summary.savedTokensPerStep.toFixed(0)} (${percent(summary.savedTokensPerStep / summary.allTokensPerStep)})`,
    ]),
  });
  const misses = report.misses.map(
    (miss) =>
      `  missed ${miss.id} (${miss.expected}${miss.rank === undefined ? ', no shared word' : `, rank ${miss.rank}`}): ${JSON.stringify(miss.query)} → ${miss.top.join(', ') || 'nothing matched'}`,
  );
  return [
    `routing: ${report.tools} tools, top ${report.topK} sent per step (lexical, BM25), first step of each request`,
    ...table,
    '',
    `not in the first five: ${report.misses.length}`,
    ...misses,
  ];
}
