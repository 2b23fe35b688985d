import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { UsageError } from '../../errors/usage-error.js';
import { computeMetrics, type TokenPrice } from '../../observe/compute-metrics.js';
import { formatMetricsTable } from '../../observe/format-metrics.js';
import { metricsToPrometheus } from '../../observe/prometheus-metrics.js';
import { observeRunRecord, observeTraceLines, type RunObservation } from '../../observe/run-observation.js';
import { parseTraceLines } from '../../observe/trace-line.js';
import type { CommandResult } from '../cli-output.js';
import { withBackend } from './open-data-store.js';
import { storeLocation, storeOptions } from './store-location.js';

/** Where `arbiter stats` looks inside the data directory. */
export const statsSources = { store: 'arbiter.db', trace: 'traces.jsonl' } as const;

export interface StatsCommandOptions {
  /** The directory the demo and the server write to. Default `.arbiter`. */
  readonly dataDirectory?: string;
  /** A PostgreSQL connection string (`--store`) to read the runs from; else `ARBITER_STORE_URL`, else the data directory. */
  readonly store?: string | undefined;
  /** Where `ARBITER_STORE_URL` is read. Default `process.env`. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  readonly json?: boolean;
  /** Print Prometheus text lines instead of the table. */
  readonly prometheus?: boolean;
  /** Turns tokens into cost per task. */
  readonly price?: TokenPrice;
  /** The most recent runs to read from the store. Default 1000. */
  readonly limit?: number;
}

/**
 * `arbiter stats [--data-dir DIR] [--json] [--prometheus] [--price IN,OUT[,CURRENCY]] [--limit N]`:
 * the agent's metrics over the runs recorded in DIR — the run store
 * (`arbiter.db`, one row per run: completion, steps, hand-offs, latency,
 * tokens) and, when present, the JSONL trace (`traces.jsonl`: tool success,
 * repeated calls, gate denials). A run in both counts once, from the trace.
 * Exit 1 when DIR holds no runs.
 *
 * @example
 * const result = statsCommand({ dataDirectory: '.arbiter', price: { inputPerMillion: 0.15, outputPerMillion: 0.6 } });
 */
export async function statsCommand({
  dataDirectory = '.arbiter',
  store,
  environment = process.env,
  json = false,
  prometheus = false,
  price,
  limit = 1000,
}: StatsCommandOptions): Promise<CommandResult> {
  const location = storeLocation({ values: { 'data-dir': dataDirectory, store }, environment });
  const tracePath = join(dataDirectory, statsSources.trace);
  const stored: RunObservation[] = await withBackend({
    location,
    work: async (backend) =>
      backend === undefined ? [] : (await backend.runtime.listRuns({ limit })).map(observeRunRecord),
  });
  const traced = existsSync(tracePath) ? observeTraceLines(parseTraceLines(readFileSync(tracePath, 'utf8'))) : [];
  const runs = new Map<string, RunObservation>();
  for (const run of [...stored].reverse()) runs.set(run.runId, run);
  for (const run of traced) runs.set(run.runId, run);
  if (runs.size === 0) {
    return {
      exitCode: 1,
      stdout: [],
      stderr: [
        `no runs recorded in ${dataDirectory} yet (looked for ${statsSources.store} and ${statsSources.trace}); ` +
          `the demo records some: \`npm run demo${dataDirectory === '.arbiter' ? '' : ` -- --data-dir ${dataDirectory}`}\` ` +
          'from a checkout (`arbiter demo` where the package is installed)',
      ],
    };
  }
  const metrics = computeMetrics([...runs.values()], price === undefined ? {} : { price });
  if (prometheus) return { exitCode: 0, stdout: metricsToPrometheus(metrics), stderr: [] };
  if (json) {
    return {
      exitCode: 0,
      stdout: [JSON.stringify({ dataDirectory, storedRuns: stored.length, tracedRuns: traced.length, metrics })],
      stderr: [],
    };
  }
  return {
    exitCode: 0,
    stdout: [
      `runs in ${dataDirectory}: ${runs.size} (${stored.length} in ${statsSources.store}, ${traced.length} in ${statsSources.trace})`,
      '',
      ...formatMetricsTable(metrics),
    ],
    stderr: [],
  };
}

/**
 * Reads `--price IN,OUT[,CURRENCY]`: prices per million input and output tokens.
 *
 * @example
 * parsePrice('0.15,0.60,USD'); // { inputPerMillion: 0.15, outputPerMillion: 0.6, currency: 'USD' }
 */
export function parsePrice(text: string): TokenPrice {
  const [input = '', output = '', currency] = text.split(',').map((part) => part.trim());
  const inputPerMillion = Number(input);
  const outputPerMillion = Number(output);
  if (input === '' || output === '' || !Number.isFinite(inputPerMillion) || !Number.isFinite(outputPerMillion)) {
    throw new UsageError({
      message: `--price must be INPUT,OUTPUT[,CURRENCY] per million tokens, e.g. 0.15,0.60,USD; got "${text}"`,
    });
  }
  return { inputPerMillion, outputPerMillion, ...(currency === undefined || currency === '' ? {} : { currency }) };
}

/**
 * Parses `arbiter stats`' flags and runs it: what `main.ts` calls.
 *
 * @example
 * process.exitCode = print(await statsFromArgs(['--data-dir', '.arbiter']));
 */
export async function statsFromArgs(args: readonly string[]): Promise<CommandResult> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      ...storeOptions,
      json: { type: 'boolean', default: false },
      prometheus: { type: 'boolean', default: false },
      price: { type: 'string' },
      limit: { type: 'string' },
    },
  });
  try {
    const limit = values.limit === undefined ? undefined : Number(values.limit);
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
      throw new UsageError({ message: `--limit must be a positive integer, got "${values.limit}"` });
    }
    return await statsCommand({
      dataDirectory: values['data-dir'],
      store: values.store,
      json: values.json,
      prometheus: values.prometheus,
      ...(values.price === undefined ? {} : { price: parsePrice(values.price) }),
      ...(limit === undefined ? {} : { limit }),
    });
  } catch (error) {
    if (UsageError.isInstance(error)) return { exitCode: 2, stdout: [], stderr: [error.message] };
    throw error;
  }
}
