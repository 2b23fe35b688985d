import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { ArbiterError } from '../../errors/arbiter-error.js';
import { UsageError } from '../../errors/usage-error.js';
import { createFixtureTools, type FixtureToolSpec } from '../../evaluation/fixture-tools.js';
import { type ErrorKind, errorKinds } from '../../evaluation/yield/error-kind.js';
import { formatYieldReport } from '../../evaluation/yield/format-yield-report.js';
import { type ExperimentRow, rowKey, runYieldExperiment } from '../../evaluation/yield/run-yield-experiment.js';
import { type YieldCondition, yieldConditions } from '../../evaluation/yield/yield-conditions.js';
import { readYieldCorpus } from '../../evaluation/yield/yield-corpus.js';
import { LocalModel } from '../../models/local/local-model.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import type { CommandResult } from '../cli-output.js';

/** Tokens a reply may write before it must have begun a call; after that it is read as prose (no call). */
const noCallWithin = 32;

/** A results file's first line: what ran, on which commit. */
export interface YieldRunHeader {
  readonly phase: 'header';
  readonly model: string;
  readonly file: string;
  readonly commit: string;
  readonly startedAt: string;
  readonly threads: number;
  /** Conversations generated at once, each on its own context sequence, in shared batches. */
  readonly parallel?: number;
  /** `K/N` when this process took only its share of the broken calls (`--shard`). */
  readonly shard?: string;
  readonly decoding: string;
}

/**
 * `arbiter eval yield --model FILE [--model FILE …] [--out DIR] [--limit N]
 * [--threads N] [--parallel N] [--shard K/N] [--conditions a,b] [--kinds a,b] [--calls id,id] [--first-calls both|original|strict|none]` (`npm run eval -- yield --model FILE`):
 * the correction-yield experiment on local GGUF models (see
 * docs/correction-yield.md). Rows go to `DIR/<model file>.jsonl` as they
 * come, headed by the commit they ran on; a rerun continues a file where it
 * stopped; `--shard K/N` takes only every N-th broken call from the K-th, so
 * that N processes on one file share the calls. `DIR/report.md` is written
 * from every results file in `DIR` at the end; `--report` only rewrites it.
 *
 * @example
 * process.exitCode = print(await evalYieldFromArgs(['--model', 'models/qwen2.5-coder-0.5b.gguf']));
 */
export async function evalYieldFromArgs(args: readonly string[]): Promise<CommandResult> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      model: { type: 'string', multiple: true },
      corpus: { type: 'string', default: 'evals/yield/corpus.json' },
      tools: { type: 'string', default: 'evals/yield/tools.json' },
      out: { type: 'string', default: 'evals/yield/results' },
      limit: { type: 'string' },
      shard: { type: 'string', default: '1/1' },
      threads: { type: 'string', default: '1' },
      parallel: { type: 'string', default: '1' },
      conditions: { type: 'string' },
      kinds: { type: 'string' },
      calls: { type: 'string' },
      report: { type: 'boolean', default: false },
      'first-calls': { type: 'string', default: 'both' },
    },
  });
  try {
    const limit = values.limit === undefined ? undefined : wholeNumber('--limit', values.limit);
    const shard = parseShard(values.shard);
    const threads = wholeNumber('--threads', values.threads);
    const parallel = wholeNumber('--parallel', values.parallel);
    const firstCalls = values['first-calls'];
    if (firstCalls !== 'both' && firstCalls !== 'original' && firstCalls !== 'strict' && firstCalls !== 'none') {
      throw new UsageError({ message: `--first-calls must be both, original, strict or none, got "${firstCalls}"` });
    }
    const conditions = values.conditions === undefined ? yieldConditions : parseConditions(values.conditions);
    const kinds = values.kinds === undefined ? undefined : parseKinds(values.kinds);
    const callIds = values.calls === undefined ? undefined : parseCallIds(values.calls);
    mkdirSync(values.out, { recursive: true });
    if (!values.report) {
      const files = values.model ?? [];
      if (files.length === 0) throw new UsageError({ message: 'eval yield needs --model FILE (a GGUF model file)' });
      const corpus = readYieldCorpus(values.corpus);
      const specs = (JSON.parse(readFileSync(values.tools, 'utf8')) as { tools: FixtureToolSpec[] }).tools;
      for (const file of files) {
        const registry = new ToolRegistry();
        for (const tool of createFixtureTools(specs)) registry.register(tool);
        const model = new LocalModel({
          file,
          threads,
          name: basename(file),
          stopAfterFirstCall: true,
          stopIfNoCallWithin: noCallWithin,
          sequences: parallel,
        });
        await model.load();
        const output = join(values.out, `${basename(file).replace(/\.gguf$/i, '')}.jsonl`);
        const done = new Map(existsSync(output) ? readRows(output).map((row) => [rowKey(row), row] as const) : []);
        const header: YieldRunHeader = {
          phase: 'header',
          model: model.name,
          file: basename(file),
          commit: currentCommit(),
          startedAt: new Date().toISOString(),
          threads,
          parallel,
          ...(shard.count === 1 ? {} : { shard: `${shard.index}/${shard.count}` }),
          decoding: `greedy (temperature 0, no repeat penalty), seed 0, at most 96 tokens, stopped after the first call or after ${noCallWithin} tokens without a call`,
        };
        appendFileSync(output, `${JSON.stringify(header)}\n`);
        await runYieldExperiment({
          model,
          corpus,
          tools: registry.specs,
          registry,
          conditions,
          done,
          firstCalls,
          ...(limit === undefined ? {} : { limit }),
          ...(kinds === undefined ? {} : { kinds }),
          ...(callIds === undefined ? {} : { callIds }),
          shard,
          concurrency: parallel,
          onRow: (row) => appendFileSync(output, `${JSON.stringify(row)}\n`),
        });
      }
    }
    const rows = readdirSync(values.out)
      .filter((name) => name.endsWith('.jsonl'))
      .sort()
      .flatMap((name) => readRows(join(values.out, name)));
    const headers = readdirSync(values.out)
      .filter((name) => name.endsWith('.jsonl'))
      .sort()
      .flatMap((name) => readHeaders(join(values.out, name)));
    const report = formatYieldReport({ rows, headers });
    writeFileSync(join(values.out, 'report.md'), `${report.join('\n')}\n`);
    return { exitCode: 0, stdout: report, stderr: [] };
  } catch (error) {
    if (ArbiterError.isInstance(error)) return { exitCode: 2, stdout: [], stderr: [error.message] };
    throw error;
  }
}

function readLines(file: string): unknown[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
}

function readRows(file: string): ExperimentRow[] {
  return readLines(file).filter((line): line is ExperimentRow => (line as { phase?: string }).phase !== 'header');
}

function readHeaders(file: string): YieldRunHeader[] {
  return readLines(file).filter((line): line is YieldRunHeader => (line as { phase?: string }).phase === 'header');
}

function wholeNumber(flag: string, value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw new UsageError({ message: `${flag} must be a whole number from 1, got "${value}"` });
  }
  return number;
}

function parseShard(value: string): { index: number; count: number } {
  const match = /^(\d+)\/(\d+)$/.exec(value);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (match === null || index < 1 || count < 1 || index > count) {
    throw new UsageError({ message: `--shard must be K/N with 1 <= K <= N, got "${value}"` });
  }
  return { index, count };
}

function parseConditions(value: string): YieldCondition[] {
  const names = value.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!yieldConditions.some((known) => known === name)) {
      throw new UsageError({
        message: `--conditions: unknown condition "${name}" (known: ${yieldConditions.join(', ')})`,
      });
    }
  }
  return names as YieldCondition[];
}

function parseKinds(value: string): ErrorKind[] {
  const names = value.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!errorKinds.some((known) => known === name)) {
      throw new UsageError({ message: `--kinds: unknown error kind "${name}" (known: ${errorKinds.join(', ')})` });
    }
  }
  return names as ErrorKind[];
}

function parseCallIds(value: string): string[] {
  const ids = value
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  if (ids.length === 0) throw new UsageError({ message: '--calls needs at least one broken call id' });
  return ids;
}

function currentCommit(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    // The results files themselves (evals/yield/results, results-<commit>) are left out: runs append to them.
    const dirty = execFileSync(
      'git',
      ['status', '--porcelain', '--untracked-files=no', '--', '.', ':(exclude,glob)evals/yield/results*/**'],
      {
        encoding: 'utf8',
      },
    ).trim();
    return dirty === '' ? commit : `${commit} (with uncommitted changes)`;
  } catch {
    return 'unknown';
  }
}
