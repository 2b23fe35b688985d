import { countToolSpecTokens } from '../context/count-tokens.js';
import type { Locale } from '../core/locale.js';
import { chooseTools } from '../routing/choose-tools.js';
import { DEFAULT_ROUTING_TOP_K } from '../routing/routing-options.js';
import type { RoutingSet } from './routing-set.js';

/** The ranks at which recall is reported. */
export const RECALL_RANKS = [1, 3, 5] as const;

/** Routing quality and cost over some of a set's requests. */
export interface RoutingSummary {
  /** `en`, `zh-CN`, or `all`. */
  readonly label: string;
  readonly queries: number;
  /** Share of requests whose right tool ranks within the first 1, 3, 5. */
  readonly recall: Readonly<Record<(typeof RECALL_RANKS)[number], number>>;
  /** Share of requests whose right tool is among the tools sent (topK, the no-match rule included). */
  readonly sentRecall: number;
  /** Requests that shared no word with any tool: every tool was sent (`onNoMatch: 'all'`). */
  readonly noMatch: number;
  /** Mean number of tools sent per step. */
  readonly toolsPerStep: number;
  /** Tool-definition tokens of one step with every tool mounted. */
  readonly allTokensPerStep: number;
  /** Mean tool-definition tokens of one step with routing. */
  readonly routedTokensPerStep: number;
  /** `allTokensPerStep - routedTokensPerStep`. */
  readonly savedTokensPerStep: number;
}

/** One request the ranking got wrong at rank 5: what came first instead. */
export interface RoutingMiss {
  readonly id: string;
  readonly query: string;
  readonly expected: string;
  /** The rank of the right tool (1-based), or undefined when it shares no term with the request. */
  readonly rank: number | undefined;
  readonly top: readonly string[];
}

export interface RoutingReport {
  readonly tools: number;
  readonly topK: number;
  /** Per locale, then all together. */
  readonly summaries: readonly RoutingSummary[];
  readonly misses: readonly RoutingMiss[];
}

/**
 * Runs the lexical router over every labelled request of a set, as the
 * loop would for a first step (no tool in use yet): where the right tool
 * ranks (recall at 1, 3 and 5), whether it is among the `topK` sent, and
 * the tool-definition tokens of a step with and without routing (counted
 * with `countToolSpecTokens`, o200k_base). Deterministic.
 *
 * @example
 * const report = evaluateRouting({ set: readRoutingSet(builtInRoutingSet) });
 * report.summaries.at(-1)?.recall[5]; // share of requests with the right tool in the first five
 */
export function evaluateRouting({
  set,
  topK = DEFAULT_ROUTING_TOP_K,
}: {
  set: RoutingSet;
  topK?: number;
}): RoutingReport {
  const specs = set.tools.specs;
  const tokens = new Map(specs.map((spec) => [spec.function.name, countToolSpecTokens(spec)]));
  const allTokens = [...tokens.values()].reduce((sum, count) => sum + count, 0);
  const rows = set.queries.map((query) => {
    const choice = chooseTools({ specs, query: [{ text: query.query, weight: 1 }], topK });
    const index = choice.ranked.findIndex((score) => score.name === query.expected);
    return {
      query,
      rank: index === -1 ? undefined : index + 1,
      top: choice.ranked.slice(0, 3).map((score) => score.name),
      sent: choice.tools.includes(query.expected),
      noMatch: choice.reason === 'no_match',
      toolsSent: choice.tools.length,
      tokensSent: choice.tools.reduce((sum, name) => sum + (tokens.get(name) ?? 0), 0),
    };
  });
  type Row = (typeof rows)[number];
  const summarise = (label: string, mine: readonly Row[]): RoutingSummary => {
    const share = (test: (row: Row) => boolean) => (mine.length === 0 ? 0 : mine.filter(test).length / mine.length);
    const mean = (value: (row: Row) => number) =>
      mine.length === 0 ? 0 : mine.reduce((sum, row) => sum + value(row), 0) / mine.length;
    const routedTokens = mean((row) => row.tokensSent);
    return {
      label,
      queries: mine.length,
      recall: {
        1: share((row) => row.rank !== undefined && row.rank <= 1),
        3: share((row) => row.rank !== undefined && row.rank <= 3),
        5: share((row) => row.rank !== undefined && row.rank <= 5),
      },
      sentRecall: share((row) => row.sent),
      noMatch: mine.filter((row) => row.noMatch).length,
      toolsPerStep: mean((row) => row.toolsSent),
      allTokensPerStep: allTokens,
      routedTokensPerStep: routedTokens,
      savedTokensPerStep: allTokens - routedTokens,
    };
  };
  const locales: Locale[] = ['en', 'zh-CN'];
  return {
    tools: specs.length,
    topK,
    summaries: [
      ...locales
        .map((locale) =>
          summarise(
            locale,
            rows.filter((row) => row.query.locale === locale),
          ),
        )
        .filter((summary) => summary.queries > 0),
      summarise('all', rows),
    ],
    misses: rows
      .filter((row) => row.rank === undefined || row.rank > 5)
      .map((row) => ({
        id: row.query.id,
        query: row.query.query,
        expected: row.query.expected,
        rank: row.rank,
        top: row.top,
      })),
  };
}
