/**
 * The per-step regression guard: what a step asks of SQLite on the two
 * per-step paths of issue 14 (in memory with the tier gate and SQLite
 * audit; durable on a SQLite file, every step committed), counted where
 * the store meets better-sqlite3 (`installSqliteCounter`), never timed.
 * A step's statements, rows touched, values bound and transactions are the
 * same on a quiet laptop and on a CI runner shared by six jobs, so a change
 * that adds work to every step shows in CI however busy the machine is;
 * how long the work takes stays for the benchmarks (`bench -- compare REV`).
 *
 * `npm test` runs `test/step-guard.test.ts`, which fails when a figure is
 * more than 10% above `bench/step-guard-baseline.json`. After a change that
 * adds work to a step on purpose, write the baseline again and commit it:
 *
 *   npm run bench -- guard            # prints the figures against the baseline
 *   npm run bench -- guard --update   # writes bench/step-guard-baseline.json
 *
 * @module
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';
import { EventBus } from '../src/index.js';
import { arbiterDurablePath, arbiterMemoryPath, type Path } from './agent-paths.js';
import { commitsOf, installSqliteCounter } from './sqlite-counter.js';

/** The paths the guard counts. */
export const guardedPaths = ['arbiter_memory', 'arbiter_durable'] as const;
export type GuardedPath = (typeof guardedPaths)[number];

/** What one step asks of SQLite, on average over the counted runs. */
export interface StepCounts {
  /** Statements run (reads and writes; not the transactions' own BEGIN and COMMIT). */
  readonly statements: number;
  /** Rows read plus rows changed. */
  readonly rows: number;
  /** Values bound to those statements. */
  readonly boundValues: number;
  /** Commits: transactions plus writes outside one. */
  readonly commits: number;
  /** Statements prepared: none once the path has run once. */
  readonly prepares: number;
  /**
   * Database pages written: frames appended to the WAL of the durable path's
   * file (0 on the in-memory path, which has none). A commit pays for each
   * page it changes (on this machine two `pwrite`s each), so an index on a
   * column every step sets costs a page a step with no statement more.
   */
  readonly pages: number;
}

export const stepCountNames = ['statements', 'rows', 'commits', 'pages', 'boundValues', 'prepares'] as const;

/**
 * The counts the guard fails on: the same on every machine and at any
 * speed. Values bound and statements prepared are printed beside them, not
 * guarded: the audit's insert binds a value its rows share once (their `at`
 * when they fall in one millisecond), and prepares one statement per shape,
 * so both depend on how fast the run went.
 */
export const guardedCounts = ['statements', 'rows', 'commits', 'pages'] as const;

/** The committed baseline: the counts per path, and how the task was run. */
export interface GuardBaseline {
  readonly steps: number;
  readonly runs: number;
  readonly paths: Record<GuardedPath, StepCounts>;
}

/** How much above its baseline a count may be before the guard fails: +10%. */
export const guardTolerance = 0.1;

const stepsPerRun = 20;
const countedRuns = 3;

/** Where the baseline is kept, beside this file's source (`bench/`). */
export const guardBaselinePath = fileURLToPath(
  new URL(
    import.meta.url.includes('/dist-bench/') ? '../../bench/step-guard-baseline.json' : './step-guard-baseline.json',
    import.meta.url,
  ),
);

/**
 * Counts what a step of `path` asks of SQLite: one warm-up run (statements
 * prepared, the audit chain's head read, a session created), then
 * `countedRuns` runs of `stepsPerRun` steps counted. `eachStep`, when given,
 * runs on every tool's end with the path's database: a deliberately slowed
 * step, as the guard's own test makes one.
 *
 * @example
 * const counts = await measureStepCounts({ path: 'arbiter_durable' });
 * counts.statements; // e.g. 4.2
 */
export async function measureStepCounts({
  path: name,
  eachStep,
  schema,
}: {
  path: GuardedPath;
  eachStep?: (database: Database.Database) => void;
  /** SQL run on the path's database before its first run (e.g. an index the guard's own test adds). */
  schema?: string;
}): Promise<StepCounts> {
  const events = new EventBus();
  let database: Database.Database | undefined;
  events.subscribe((event) => {
    if (event.type === 'tool:end' && database !== undefined) eachStep?.(database);
  });
  // The durable path without its checkpoint thread, and no checkpoint inline while counting: the WAL only grows.
  const path: Path & { store: { database: Database.Database } } =
    name === 'arbiter_memory' ? arbiterMemoryPath({ events }) : arbiterDurablePath({ events, checkpoints: 'inline' });
  database = path.store.database;
  if (schema !== undefined) database.exec(schema);
  const walFrames = walFrameCounter(database);
  let pages = 0;
  try {
    const task = path.task(stepsPerRun);
    await task.prepare?.();
    await task.run();
    database.pragma('wal_autocheckpoint = 0');
    const counter = installSqliteCounter();
    try {
      for (let run = 0; run < countedRuns; run += 1) {
        // The durable path's session is made before its run, as a user's message goes to a session that exists:
        // not part of a step.
        counter.uninstall();
        await task.prepare?.();
        counter.reinstall();
        const before = walFrames();
        await task.run();
        pages += walFrames() - before;
      }
    } finally {
      counter.uninstall();
    }
    const { counts } = counter;
    const steps = stepsPerRun * countedRuns;
    const perStep = (value: number) => Math.round((value / steps) * 1000) / 1000;
    return {
      statements: perStep(counts.reads + counts.writes),
      rows: perStep(counts.rows),
      boundValues: perStep(counts.boundValues),
      commits: perStep(commitsOf(counts)),
      pages: perStep(pages),
      prepares: perStep(counts.prepares),
    };
  } finally {
    path.close();
  }
}

/**
 * The frames in the WAL of the connection's file, from its size: a 32-byte
 * header, then a 24-byte header and a page per frame. Always 0 in memory
 * (no WAL).
 */
function walFrameCounter(database: Database.Database): () => number {
  if (database.memory) return () => 0;
  const wal = `${database.name}-wal`;
  const frameSize = (database.pragma('page_size', { simple: true }) as number) + 24;
  return () => {
    const size = existsSync(wal) ? statSync(wal).size : 0;
    return size <= 32 ? 0 : (size - 32) / frameSize;
  };
}

/** Counts every guarded path, each with `measureStepCounts`'s `eachStep` and `schema` when given. */
export async function measureAllStepCounts(
  options: Omit<Parameters<typeof measureStepCounts>[0], 'path'> = {},
): Promise<Record<GuardedPath, StepCounts>> {
  const measured: Partial<Record<GuardedPath, StepCounts>> = {};
  for (const path of guardedPaths) measured[path] = await measureStepCounts({ ...options, path });
  return measured as Record<GuardedPath, StepCounts>;
}

/** One count against its baseline. */
export interface GuardFinding {
  readonly path: GuardedPath;
  readonly count: (typeof stepCountNames)[number];
  readonly baseline: number;
  readonly measured: number;
  /** Whether the guard fails on this count (`guardedCounts`). */
  readonly guarded: boolean;
  /** More than `guardTolerance` above the baseline, on a guarded count. */
  readonly over: boolean;
}

/**
 * Every count of every path against the baseline; `over` where a guarded
 * count is more than 10% above it (one of 0 in the baseline may not grow at all).
 *
 * @example
 * const over = checkStepCounts({ measured, baseline }).filter((finding) => finding.over);
 */
export function checkStepCounts({
  measured,
  baseline,
  tolerance = guardTolerance,
}: {
  measured: Record<GuardedPath, StepCounts>;
  baseline: GuardBaseline;
  tolerance?: number;
}): GuardFinding[] {
  const findings: GuardFinding[] = [];
  for (const path of guardedPaths) {
    for (const count of stepCountNames) {
      const base = baseline.paths[path]?.[count];
      if (typeof base !== 'number') {
        throw new Error(
          `the step guard's baseline (${guardBaselinePath}) has no ${count} for ${path}: write it again with npm run bench -- guard --update`,
        );
      }
      const value = measured[path][count];
      const guarded = (guardedCounts as readonly string[]).includes(count);
      const over = guarded && value > base * (1 + tolerance) + 1e-9;
      findings.push({ path, count, baseline: base, measured: value, guarded, over });
    }
  }
  return findings;
}

/** The committed baseline. */
export function readGuardBaseline(): GuardBaseline {
  return JSON.parse(readFileSync(guardBaselinePath, 'utf8')) as GuardBaseline;
}

/** The lines `npm run bench -- guard` prints: each count, its baseline, and OVER where the guard would fail. */
export function formatFindings(findings: readonly GuardFinding[]): string[] {
  return findings.map(
    (finding) =>
      `  ${finding.path.padEnd(16)} ${finding.count.padEnd(12)} ${finding.measured.toFixed(3).padStart(8)} per step (baseline ${finding.baseline.toFixed(3)}${finding.guarded ? `, limit ${(finding.baseline * (1 + guardTolerance)).toFixed(3)}` : ', not guarded'})${finding.over ? '  OVER' : ''}`,
  );
}

/**
 * `npm run bench -- guard [--update]`: counts both paths, prints them
 * against the baseline, and with `--update` writes them as the new baseline.
 * Answers whether every count is within the limit (always, after an update).
 */
export async function runStepGuard({ update }: { update: boolean }): Promise<{ lines: string[]; ok: boolean }> {
  const measured = await measureAllStepCounts();
  if (update) {
    const baseline: GuardBaseline = { steps: stepsPerRun, runs: countedRuns, paths: measured };
    writeFileSync(guardBaselinePath, `${JSON.stringify(baseline, null, 2)}\n`);
    return {
      lines: [`step guard: wrote ${guardBaselinePath}`, ...formatFindings(checkStepCounts({ measured, baseline }))],
      ok: true,
    };
  }
  const findings = checkStepCounts({ measured, baseline: readGuardBaseline() });
  const ok = findings.every((finding) => !finding.over);
  return {
    lines: [
      `step guard: SQLite work per step against ${guardBaselinePath} (fails above +${guardTolerance * 100}%): ${ok ? 'within' : 'OVER'}`,
      ...formatFindings(findings),
    ],
    ok,
  };
}
