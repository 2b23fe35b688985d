/**
 * `npm run bench -- compare REV`: this checkout against revision REV, side
 * by side in one run. REV is built beside the checkout (its tree from
 * `git archive` into a directory under the system's temporary directory,
 * kept there for the next comparison of the same commit; `node_modules` a
 * link to this checkout's, or `npm ci` with `--install`; then `tsc -p
 * tsconfig.bench.json` there). Each build runs the per-step paths of
 * issue 14 (`bench/agent-paths.ts`: the 20-step task in memory with the
 * tier gate and SQLite audit, and durable on a SQLite file, every step
 * committed) in worker threads of its own, one configuration per worker
 * as an application runs one, and the two builds alternate block by block
 * (the order swapped each round), so load from elsewhere reaches both.
 *
 * Printed per path: each build's median µs per step over all its runs
 * (wall time, and below it the process's CPU time, which other processes'
 * load inflates less),
 * and the ratio checkout / REV with a 95% confidence interval two ways:
 * a bootstrap over the rounds (resampling rounds, the ratio of the two
 * medians each time), and the median of the rounds' own ratios with its
 * distribution-free interval. Below 1: the checkout is faster.
 *
 *   npm run bench -- compare a27bfa0
 *   npm run bench -- compare a27bfa0 --rounds=60 --runs=20 --paths=arbiter_memory,arbiter_durable
 *   npm run bench -- compare main --install --rebuild
 *
 * @module
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { CompareWorkerAnswer, CompareWorkerRequest, RunTimes } from './compare-worker.js';
import { median } from './measure.js';
import { addedFraction } from './measure-paired.js';

/** What `compare` is asked, from its command line. */
export interface CompareOptions {
  readonly revision: string;
  readonly paths: readonly string[];
  /** Rounds counted (one warm-up round comes first, not counted). */
  readonly rounds: number;
  /** Runs of one build in a block, back to back. */
  readonly runsPerBlock: number;
  readonly steps: number;
  /** `npm ci` in REV's tree instead of linking this checkout's `node_modules`. */
  readonly install: boolean;
  /** Build REV again even when a build of it is there. */
  readonly rebuild: boolean;
}

/**
 * Reads `compare REV [--paths=a,b] [--rounds=N] [--runs=N] [--steps=N] [--install] [--rebuild]`.
 *
 * @example
 * parseCompareArguments(['a27bfa0', '--rounds=60']).rounds; // 60
 */
export function parseCompareArguments(argumentsGiven: readonly string[]): CompareOptions {
  const flags = new Map<string, string>();
  const positional: string[] = [];
  for (const argument of argumentsGiven) {
    const flag = /^--([a-z-]+)(?:=(.*))?$/.exec(argument);
    if (flag === null) positional.push(argument);
    else flags.set(flag[1] as string, flag[2] ?? 'true');
  }
  const [revision] = positional;
  if (revision === undefined) throw new Error('compare needs a revision: npm run bench -- compare REV');
  const count = (name: string, fallback: number) => {
    const value = Number(flags.get(name) ?? fallback);
    if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} takes a positive integer`);
    return value;
  };
  return {
    revision,
    paths: (flags.get('paths') ?? 'arbiter_memory,arbiter_durable').split(',').filter((name) => name !== ''),
    rounds: count('rounds', 40),
    runsPerBlock: count('runs', 20),
    steps: count('steps', 20),
    install: flags.has('install'),
    rebuild: flags.has('rebuild'),
  };
}

const git = (repository: string, ...command: string[]) =>
  execFileSync('git', ['-C', repository, ...command], { encoding: 'utf8' }).trim();

/**
 * REV's compiled benchmarks, built once per commit under the temporary
 * directory: the path of its `bench/agent-paths.js`.
 */
function buildRevision({
  repository,
  commit,
  install,
  rebuild,
  log,
}: {
  repository: string;
  commit: string;
  install: boolean;
  rebuild: boolean;
  log: (line: string) => void;
}): string {
  const directory = join(tmpdir(), `arbiter-compare-${commit.slice(0, 12)}`);
  const built = join(directory, 'dist-bench', 'bench', 'agent-paths.js');
  if (existsSync(built) && !rebuild) {
    log(`reusing the build of ${commit.slice(0, 12)} in ${directory}`);
    return built;
  }
  log(`building ${commit.slice(0, 12)} in ${directory}`);
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true });
  const archive = spawnSync('git', ['-C', repository, 'archive', '--format=tar', commit], {
    maxBuffer: 1024 * 1024 * 1024,
  });
  if (archive.status !== 0) throw new Error(`git archive ${commit} failed: ${archive.stderr.toString()}`);
  execFileSync('tar', ['-x', '-C', directory], { input: archive.stdout });
  const sameLock =
    readFileSync(join(directory, 'package-lock.json'), 'utf8') ===
    readFileSync(join(repository, 'package-lock.json'), 'utf8');
  if (install) {
    execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: directory, stdio: 'inherit' });
  } else {
    if (!sameLock)
      log("  its package-lock.json differs from this checkout's; linking node_modules anyway (--install to npm ci)");
    symlinkSync(realpathSync(join(repository, 'node_modules')), join(directory, 'node_modules'), 'dir');
  }
  const compiled = spawnSync(
    process.execPath,
    [join(directory, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.bench.json'],
    { cwd: directory, encoding: 'utf8' },
  );
  if (!existsSync(built)) {
    throw new Error(`tsc did not build ${built}:\n${compiled.stdout}${compiled.stderr}`);
  }
  if (compiled.status !== 0)
    log(
      `  tsc reported errors (the files were written; first lines):\n${compiled.stdout.split('\n').slice(0, 5).join('\n')}`,
    );
  return built;
}

/** One configuration of one build in its worker. */
class BuildWorker {
  readonly #worker: Worker;
  #pending: Promise<unknown> = Promise.resolve();

  constructor(module: string, name: string) {
    this.#worker = new Worker(new URL('./compare-worker.js', import.meta.url), {
      workerData: { module: pathToFileURL(module).href, name },
    });
    this.#worker.on('error', () => {});
  }

  /** µs per step of `count` runs back to back, wall and CPU time. */
  runs(steps: number, count: number): Promise<RunTimes> {
    const request: CompareWorkerRequest = { kind: 'runs', steps, count };
    const answer = this.#pending.then(
      () =>
        new Promise<RunTimes>((resolve, reject) => {
          const onError = (error: Error) => reject(error);
          this.#worker.once('error', onError);
          this.#worker.once('message', (message: CompareWorkerAnswer) => {
            this.#worker.off('error', onError);
            if (message.ok) resolve(message.value as RunTimes);
            else reject(new Error(message.message));
          });
          this.#worker.postMessage(request);
        }),
    );
    this.#pending = answer.catch(() => {});
    return answer;
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.#worker.once('exit', resolve));
    this.#worker.postMessage({ kind: 'close' } satisfies CompareWorkerRequest);
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
    await this.#worker.terminate();
  }
}

/** A build's runs, round by round. */
type Rounds = number[][];

/** The result for one path and one measure (wall or CPU time). */
export interface PathComparison {
  readonly path: string;
  readonly measure: 'wall' | 'cpu';
  readonly checkoutMicroseconds: number;
  readonly revisionMicroseconds: number;
  /** checkout / revision, of the two medians. */
  readonly ratio: number;
  readonly bootstrapLow: number;
  readonly bootstrapHigh: number;
  /** The median of the rounds' own ratios (checkout block median / revision block median), and its 95% interval. */
  readonly roundRatio: number;
  readonly roundLow: number;
  readonly roundHigh: number;
  readonly runs: number;
}

/** A small seeded generator (mulberry32): the bootstrap gives the same interval for the same samples. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * checkout / revision from rounds of both, with a bootstrap 95% interval
 * (rounds resampled with replacement, 2,000 times) and the rounds' own ratios.
 *
 * @example
 * compareRounds({ path: 'arbiter_memory', measure: 'wall', checkout: [[10, 11]], revision: [[12, 13]] }).ratio; // 0.84
 */
export function compareRounds({
  path,
  measure,
  checkout,
  revision,
}: {
  path: string;
  measure: 'wall' | 'cpu';
  checkout: Rounds;
  revision: Rounds;
}): PathComparison {
  const checkoutMicroseconds = median(checkout.flat());
  const revisionMicroseconds = median(revision.flat());
  const random = seededRandom(48);
  const ratios: number[] = [];
  for (let sample = 0; sample < 2000; sample += 1) {
    const left: number[] = [];
    const right: number[] = [];
    for (let index = 0; index < checkout.length; index += 1) {
      const round = Math.floor(random() * checkout.length);
      left.push(...(checkout[round] as number[]));
      right.push(...(revision[round] as number[]));
    }
    ratios.push(median(left) / median(right));
  }
  ratios.sort((a, b) => a - b);
  const rounds = addedFraction(checkout.map(median), revision.map(median));
  return {
    path,
    measure,
    checkoutMicroseconds,
    revisionMicroseconds,
    ratio: checkoutMicroseconds / revisionMicroseconds,
    bootstrapLow: ratios[Math.floor(ratios.length * 0.025)] as number,
    bootstrapHigh: ratios[Math.ceil(ratios.length * 0.975) - 1] as number,
    roundRatio: 1 + rounds.median,
    roundLow: 1 + rounds.confidenceLow,
    roundHigh: 1 + rounds.confidenceHigh,
    runs: checkout.flat().length,
  };
}

/**
 * Builds REV if needed, measures both builds alternately, and answers the
 * lines to print and the figures.
 *
 * @example
 * const { lines } = await compareRevisions(parseCompareArguments(['a27bfa0']));
 */
export async function compareRevisions(
  options: CompareOptions,
  log: (line: string) => void = (line) => console.log(line),
): Promise<{ lines: string[]; comparisons: PathComparison[] }> {
  const repository = git(process.cwd(), 'rev-parse', '--show-toplevel');
  const commit = git(repository, 'rev-parse', '--verify', `${options.revision}^{commit}`);
  const head = git(repository, 'rev-parse', '--short=12', 'HEAD');
  const dirty = git(repository, 'status', '--porcelain', '--untracked-files=no') !== '';
  const revisionModule = buildRevision({
    repository,
    commit,
    install: options.install,
    rebuild: options.rebuild,
    log,
  });
  const checkoutModule = new URL('./agent-paths.js', import.meta.url).pathname;
  const checkoutName = `HEAD ${head}${dirty ? '+' : ''}`;
  const revisionName = `${options.revision} ${commit.slice(0, 12)}`;
  const before = loadavg();
  const comparisons: PathComparison[] = [];
  for (const path of options.paths) {
    const builds = [new BuildWorker(checkoutModule, path), new BuildWorker(revisionModule, path)] as const;
    const wall: [Rounds, Rounds] = [[], []];
    const cpu: [Rounds, Rounds] = [[], []];
    try {
      for (let round = 0; round <= options.rounds; round += 1) {
        const order = round % 2 === 0 ? [0, 1] : [1, 0];
        const results: RunTimes[] = [];
        for (const side of order) {
          results[side] = await (builds[side] as BuildWorker).runs(options.steps, options.runsPerBlock);
        }
        if (round === 0) continue;
        for (const side of [0, 1] as const) {
          wall[side].push((results[side] as RunTimes).wall);
          cpu[side].push((results[side] as RunTimes).cpu);
        }
      }
    } finally {
      await Promise.all(builds.map((build) => build.close()));
    }
    comparisons.push(compareRounds({ path, measure: 'wall', checkout: wall[0], revision: wall[1] }));
    comparisons.push(compareRounds({ path, measure: 'cpu', checkout: cpu[0], revision: cpu[1] }));
  }
  const after = loadavg();
  const lines = [
    `compare: ${checkoutName} (this checkout${dirty ? ', with uncommitted changes' : ''}) vs ${revisionName}; node ${process.version}, ${cpus().length} CPUs, load average ${before.map((value) => value.toFixed(2)).join(' ')} before, ${after.map((value) => value.toFixed(2)).join(' ')} after`,
    `  ${options.steps}-step task, µs per step (run time / steps), ${options.rounds} rounds of ${options.runsPerBlock} runs per build after one warm-up round, builds alternating block by block`,
  ];
  for (const entry of comparisons) {
    const name = entry.measure === 'wall' ? entry.path : '  CPU time';
    lines.push(
      `  ${name.padEnd(24)} HEAD ${entry.checkoutMicroseconds.toFixed(2).padStart(8)}  ${options.revision} ${entry.revisionMicroseconds.toFixed(2).padStart(8)}  ratio ${entry.ratio.toFixed(3)} (95% CI ${entry.bootstrapLow.toFixed(3)}–${entry.bootstrapHigh.toFixed(3)}, bootstrap over rounds; rounds' own ratios: median ${entry.roundRatio.toFixed(3)}, 95% CI ${entry.roundLow.toFixed(3)}–${entry.roundHigh.toFixed(3)})`,
    );
  }
  lines.push(
    `  (${comparisons[0]?.runs ?? 0} runs per build and path; wall time per step first, then the process's CPU time per step, which a busy machine inflates less)`,
  );
  return { lines, comparisons };
}
