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
