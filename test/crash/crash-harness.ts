/**
 * Runs crash trials: driver processes on one directory, killed with SIGKILL
 * (at a random time, or at a numbered crash point), then resumed by fresh
 * processes until the conversation completes, while a reader in this
 * process watches the session's counters.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import { type Observation, observe } from './shop-conversation.js';

const driverSource = join(import.meta.dirname, 'crash-driver.ts');

/**
 * How to start a driver (by default the session driver, `crash-driver.ts`):
 * the driver bundled into one file when esbuild (a dependency of tsx) is at
 * hand, which starts five times faster; otherwise through tsx.
 */
export async function prepareDriver(
  cacheDirectory: string,
  source: string = driverSource,
): Promise<{ command: string; args: string[] }> {
  try {
    const esbuild = await import('esbuild');
    const outfile = join(cacheDirectory, basename(source).replace(/\.ts$/, '.mjs'));
    await esbuild.build({
      entryPoints: [source],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'error',
    });
    return { command: process.execPath, args: [outfile] };
  } catch {
    return { command: process.execPath, args: ['--import', 'tsx', source] };
  }
}

export interface TrialPlan {
  readonly directory: string;
  readonly driver: { command: string; args: string[] };
  /** Kill the first process at this crash point (the driver kills itself there). */
  readonly crashAt?: number;
  /**
   * Kill up to this many processes in a row, each after a random
   * 0–`maxKillDelayMs` ms once ready; one that finishes first ends the trial.
   */
  readonly randomKills?: number;
  readonly maxKillDelayMs?: number;
  readonly extraArgs?: readonly string[];
  /** Stop after the first process (for tests that drive the resume themselves). */
  readonly firstProcessOnly?: boolean;
}

export interface TrialReport {
  /** Processes that died by SIGKILL. */
  readonly kills: number;
  /** Processes started after a kill, to resume. */
  readonly resumes: number;
  /** Kills that came too late: the process had already finished. */
  readonly missedKills: number;
  readonly observations: number;
  /** Counters seen going backwards: must stay empty. */
  readonly regressions: readonly string[];
  readonly log: readonly string[];
  /** How long the last process ran from saying `ready` to its exit (its work, without its start-up). */
  readonly lastRunMs: number | undefined;
}

/** Runs one trial to completion and reports what happened. */
export async function runTrial(plan: TrialPlan): Promise<TrialReport> {
  mkdirSync(plan.directory, { recursive: true });
  const watcher = new CounterWatcher(join(plan.directory, 'arbiter.db'));
  let kills = 0;
  let resumes = 0;
  let missedKills = 0;
  let randomKillsLeft = plan.randomKills ?? 0;
  let lastRunMs: number | undefined;
  try {
    for (let index = 0; ; index += 1) {
      const first = index === 0;
      const args = [
        ...plan.driver.args,
        plan.directory,
        ...(plan.extraArgs ?? []),
        ...(first && plan.crashAt !== undefined ? ['--crash-at', String(plan.crashAt)] : []),
      ];
      const killAfter = randomKillsLeft > 0 ? Math.random() * (plan.maxKillDelayMs ?? 300) : undefined;
      if (killAfter !== undefined) randomKillsLeft -= 1;
      const exit = await runProcess({ command: plan.driver.command, args, killAfter, watcher });
      lastRunMs = exit.runMs;
      if (exit.killed) kills += 1;
      else if (killAfter !== undefined) missedKills += 1;
      if (!exit.killed && exit.code !== 0) {
        throw new Error(`driver exited with ${exit.code}: ${exit.stderr}`);
      }
      // A process that was not killed ran the conversation to its end.
      if (plan.firstProcessOnly === true || !exit.killed) break;
      resumes += 1;
    }
    watcher.poll();
    return {
      kills,
      resumes,
      missedKills,
      observations: watcher.count,
      regressions: watcher.regressions,
      log: readFileSync(join(plan.directory, 'log.txt'), 'utf8')
        .split('\n')
        .filter((line) => line !== ''),
      lastRunMs,
    };
  } finally {
    watcher.close();
  }
}

/** Removes a trial's directory. */
export function removeTrial(directory: string): void {
  rmSync(directory, { recursive: true, force: true });
}

async function runProcess({
  command,
  args,
  killAfter,
  watcher,
}: {
  command: string;
  args: string[];
  killAfter: number | undefined;
  watcher: CounterWatcher;
}): Promise<{ killed: boolean; code: number | null; stderr: string; runMs: number | undefined }> {
  const child: ChildProcess = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let timer: NodeJS.Timeout | undefined;
  let readyAt: number | undefined;
  child.stdout?.on('data', (chunk: Buffer) => {
    if (readyAt === undefined && chunk.toString().includes('ready')) readyAt = performance.now();
    if (killAfter !== undefined && timer === undefined && chunk.toString().includes('ready')) {
      timer = setTimeout(() => child.kill('SIGKILL'), killAfter);
    }
  });
  const polling = setInterval(() => watcher.poll(), 4);
  try {
    return await new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', (code, signal) =>
        resolve({
          killed: signal === 'SIGKILL',
          code,
          stderr,
          runMs: readyAt === undefined ? undefined : performance.now() - readyAt,
        }),
      );
    });
  } finally {
    clearTimeout(timer);
    clearInterval(polling);
  }
}

/** A reader of the session's counters from outside the driver processes, as a server would be. */
class CounterWatcher {
  readonly regressions: string[] = [];
  count = 0;
  readonly #path: string;
  #database: Database.Database | undefined;
  #last: Observation | undefined;

  constructor(path: string) {
    this.#path = path;
  }

  poll(): void {
    if (this.#database === undefined) {
      if (!existsSync(this.#path)) return;
      try {
        this.#database = new Database(this.#path, { fileMustExist: true });
        this.#database.pragma('busy_timeout = 2000');
      } catch {
        return;
      }
    }
    let now: Observation | undefined;
    try {
      now = observe(this.#database);
    } catch {
      return; // The schema is still being created by the first driver.
    }
    if (now === undefined) return;
    this.count += 1;
    const last = this.#last;
    if (last !== undefined) {
      for (const key of ['version', 'stepCount', 'inputTokens', 'outputTokens', 'messageCount'] as const) {
        if (now[key] < last[key]) this.regressions.push(`${key} went from ${last[key]} to ${now[key]}`);
      }
      if (now.activeRunId !== null && now.activeRunId === last.activeRunId) {
        for (const key of ['runSteps', 'runInputTokens'] as const) {
          if (now[key] < last[key]) this.regressions.push(`${key} of run went from ${last[key]} to ${now[key]}`);
        }
      }
    }
    this.#last = now;
  }

  close(): void {
    this.#database?.close();
  }
}
