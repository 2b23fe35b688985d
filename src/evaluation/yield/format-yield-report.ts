import type { ExperimentRow } from './run-yield-experiment.js';

/** Placeholder until the tables are written. */
export function formatYieldReport({ rows }: { rows: readonly ExperimentRow[]; headers: readonly unknown[] }): string[] {
  return [`${rows.length} rows`];
}
