import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Shared timing helpers for the benchmarks: medians of repeated rounds, measured in one process. */

export interface Measurement {
  /** Median nanoseconds per operation over the rounds. */
  readonly nanosecondsPerOperation: number;
  readonly operationsPerSecond: number;
}

/**
 * Runs `operation` `iterations` times per round, `rounds` times, after a
 * warm-up round, and returns the median time per operation.
 */
export async function measure({
  operation,
  iterations,
  rounds = 7,
}: {
  operation: () => unknown;
  iterations: number;
  rounds?: number;
}): Promise<Measurement> {
  const perOperation: number[] = [];
  for (let round = 0; round <= rounds; round += 1) {
    const start = process.hrtime.bigint();
    for (let index = 0; index < iterations; index += 1) {
      const result = operation();
      if (result instanceof Promise) await result;
    }
    const elapsed = Number(process.hrtime.bigint() - start);
    if (round > 0) perOperation.push(elapsed / iterations);
  }
  perOperation.sort((left, right) => left - right);
  const median = perOperation[Math.floor(perOperation.length / 2)] ?? Number.NaN;
  return { nanosecondsPerOperation: median, operationsPerSecond: 1e9 / median };
}

export function formatMicroseconds(nanoseconds: number): string {
  return `${(nanoseconds / 1000).toFixed(2)} µs`;
}

export function formatRate(operationsPerSecond: number): string {
  return `${Math.round(operationsPerSecond).toLocaleString('en-US')}/s`;
}

/** True when the module at `moduleUrl` is the script node was started with (run alone, not imported by run-all). */
export function isMainModule(moduleUrl: string): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return false;
  }
}

/** The median of `values` (NaN when empty); `values` is not changed. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** One target of the benchmarks, as printed (MET/MISSED) and written to results.json. */
export interface Target {
  /** Short stable id, e.g. `gated_memory_step_vs_ai_sdk`. */
  readonly id: string;
  /** What is compared, in words. */
  readonly description: string;
  readonly value: number;
  readonly limit: number;
  /** `<=`: `value` must be at most `limit`; `<`, `>=` likewise. */
  readonly comparison: '<=' | '<' | '>=';
  readonly met: boolean;
}

/**
 * A target with its verdict computed.
 *
 * @example
 * target({ id: 'ratio', description: 'arbiter / AI SDK per step', value: 0.07, comparison: '<=', limit: 0.1 }).met; // true
 */
export function target(fields: Omit<Target, 'met'>): Target {
  const { value, limit, comparison } = fields;
  const met = comparison === '<=' ? value <= limit : comparison === '<' ? value < limit : value >= limit;
  return { ...fields, met };
}

/** `0.073 (target <= 0.100) MET`. */
export function formatVerdict(entry: Target, digits = 3): string {
  return `${entry.value.toFixed(digits)} (target ${entry.comparison} ${entry.limit.toFixed(digits)}) ${entry.met ? 'MET' : 'MISSED'}`;
}

/** What one benchmark hands to run-all: the lines it prints, its figures, and its targets. */
export interface BenchResult {
  readonly lines: string[];
  readonly ratios: Record<string, number>;
  readonly targets?: readonly Target[];
  /** Any further machine-readable figures, written to results.json as they are. */
  readonly figures?: Record<string, unknown>;
}

/**
 * Like `measure`, for several operations compared with one another: each
 * round runs every operation `iterations` times, one after another in
 * rotating order, so a machine that gets busier slows them alike. Returns
 * the median nanoseconds per operation of each, in the order given.
 */
export async function measureInterleaved({
  operations,
  iterations,
  rounds = 15,
}: {
  operations: readonly (() => unknown)[];
  iterations: number;
  rounds?: number;
}): Promise<Measurement[]> {
  const perOperation: number[][] = operations.map(() => []);
  for (let round = 0; round <= rounds; round += 1) {
    for (let offset = 0; offset < operations.length; offset += 1) {
      const index = (round + offset) % operations.length;
      const operation = operations[index] as () => unknown;
      const start = process.hrtime.bigint();
      for (let iteration = 0; iteration < iterations; iteration += 1) {
        const result = operation();
        if (result instanceof Promise) await result;
      }
      const elapsed = Number(process.hrtime.bigint() - start);
      if (round > 0) perOperation[index]?.push(elapsed / iterations);
    }
  }
  return perOperation.map((values) => {
    const nanosecondsPerOperation = median(values);
    return { nanosecondsPerOperation, operationsPerSecond: 1e9 / nanosecondsPerOperation };
  });
}
