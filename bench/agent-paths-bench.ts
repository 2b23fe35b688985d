/**
 * Issue 14, "performance as a user runs it": the AI SDK's `generateText`
 * in memory against arbiter with the tier gate and a SQLite audit log, in
 * memory (`runAgent`) and durable (`runSession` on a SQLite file, every
 * step committed), at 20, 200 and 500 steps, in one process: each
 * configuration in a worker thread of its own (its own isolate, heap and
 * JIT feedback, as in an application; see `agent-path-worker.ts`), driven
 * from the main thread one run at a time. Runs of all
 * configurations and all lengths are interleaved: each of a few rounds
 * runs every path at every length (rotating the order), after one warm-up
 * round of the same shape, so a busy machine slows the 20-step and the
 * 500-step runs alike (measured one length after the other, target 3's
 * ratios flipped from run to run with the machine's load). Target 3 is
 * also given as the median of the rounds' own 500/20 ratios.
 *
 * Two figures per configuration and length:
 * - per step: the whole run's time over its steps (the run's fixed costs
 *   spread over them);
 * - step at length: the time between two model calls (one whole step:
 *   commit the answer, gate, run and audit the tool, commit its result,
 *   prepare the next request): the median of the run's last 19 steps over
 *   all runs, so at 500 steps it is the cost of a step in a 1,000-message
 *   conversation.
 *
 * Afterwards one counted run per arbiter configuration reports what SQLite
 * was asked to do per step (statements prepared, writes, transactions).
 *
 * BENCH_RUNS_SCALE (default 1) scales the number of runs.
 */
import { Worker } from 'node:worker_threads';
import type { PathWorkerAnswer, PathWorkerRequest, WorkerPathName } from './agent-path-worker.js';
import { type PathName, type PathSample, pathLabels, tailWindow } from './agent-paths.js';
import { type BenchResult, formatVerdict, isMainModule, median, type Target, target } from './measure.js';
import { commitsOf, type SqliteCounts } from './sqlite-counter.js';

const lengths = [20, 200, 500] as const;
type Length = (typeof lengths)[number];
const scale = Number(process.env.BENCH_RUNS_SCALE ?? '1');
const runsPerLength: Record<Length, number> = {
  20: Math.max(5, Math.round(60 * scale)),
  200: Math.max(3, Math.round(8 * scale)),
  500: Math.max(3, Math.round(4 * scale)),
};
/**
 * Rounds the runs of every length are spread over: each round runs every
 * path at every length (rotating which goes first), so the 20-step and the
 * 500-step figures of a path come from the same stretches of time and a
 * machine that gets busier slows both alike. One more round, the same,
 * comes first as warm-up and is not counted.
 */
const rounds = Math.max(3, Math.round(4 * scale));
/**
 * Runs of one path back to back, in a block, before the next path's block.
 * Alternating paths run by run made every run start cold: after another
 * configuration's run the caches hold its code and data, and a 1 ms run
 * paid about 0.3-0.5 ms of that (measured with idle gaps between runs of
 * one path), a fixed cost that weighs twenty times more on a 1 ms run than
 * on the AI SDK's 9 ms one. An application runs one configuration run
 * after run; the blocks still interleave, so load drift reaches every path.
 */
const runBlock = 5;
const pathNames: readonly PathName[] = [
  'ai_sdk',
  'arbiter_memory',
  'arbiter_memory_context',
  'arbiter_durable',
  'arbiter_durable_context',
];
const arbiterPaths = pathNames.filter((name) => name !== 'ai_sdk');

interface Figures {
  /** Median over runs of the run's time / steps. */
  readonly perStepMicroseconds: number;
  /** Median of the times of the last steps of every run (a median: a disk stall in one step does not move it). */
  readonly stepAtLengthMicroseconds: number;
  /** Mean over runs of the run's time / steps: what the slow runs (a checkpoint, a collection) add. */
  readonly meanPerStepMicroseconds: number;
  /** The 90th percentile over runs of the run's time / steps. */
  readonly p90PerStepMicroseconds: number;
  readonly runs: number;
}

/**
 * A configuration running in its own worker thread (see
 * `agent-path-worker.ts`), asked one thing at a time.
 *
 * @example
 * const worker = new PathWorker('arbiter_durable');
 * const samples = await worker.samples(20, 5);
 * await worker.close();
 */
export class PathWorker<Name extends WorkerPathName = PathName> {
  readonly name: Name;
  readonly #worker: Worker;

  constructor(name: Name) {
    this.name = name;
    this.#worker = new Worker(new URL('./agent-path-worker.js', import.meta.url), { workerData: { name } });
  }

  /** `count` timed runs of `steps` steps, back to back. */
  samples(steps: number, count: number): Promise<PathSample[]> {
    return this.#ask({ kind: 'samples', steps, count }) as Promise<PathSample[]>;
  }

  count(steps: number): Promise<SqliteCounts> {
    return this.#ask({ kind: 'count', steps }) as Promise<SqliteCounts>;
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.#worker.once('exit', resolve));
    this.#worker.postMessage({ kind: 'close' } satisfies PathWorkerRequest);
    await exited;
  }

  #ask(request: PathWorkerRequest): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      this.#worker.once('error', onError);
      this.#worker.once('message', (answer: PathWorkerAnswer) => {
        this.#worker.off('error', onError);
        if (answer.ok) resolve(answer.value);
        else reject(new Error(`${this.name}: ${answer.message}`));
      });
      this.#worker.postMessage(request);
    });
  }
}

interface Measured {
  readonly byLength: Map<Length, Map<PathName, Figures>>;
  /** Per path, the median over rounds of (step at 500 / step at 20) within the round. */
  readonly flatByRound: Map<PathName, number>;
}

/**
 * Every length and path interleaved: `rounds` rounds (after one warm-up
 * round like them), each running, per length in rotating order and per
 * path in rotating order, that length's share of its runs.
 */
async function measureLengths(paths: readonly PathWorker[]): Promise<Measured> {
  const tasks = lengths.map((steps) => paths.map((path) => ({ name: path.name, steps, path })));
  const samples = new Map<string, PathSample[][]>();
  const key = (name: PathName, steps: Length) => `${name}@${steps}`;
  for (const path of paths) for (const steps of lengths) samples.set(key(path.name, steps), []);
  for (let round = -1; round < rounds; round += 1) {
    const turn = Math.max(round, 0);
    for (let lengthOffset = 0; lengthOffset < lengths.length; lengthOffset += 1) {
      const perPath = tasks[(turn + lengthOffset) % lengths.length] ?? [];
      const steps = (perPath[0]?.steps ?? 20) as Length;
      const runs = Math.ceil(runsPerLength[steps] / rounds);
      for (let block = 0; block * runBlock < runs; block += 1) {
        const count = Math.min(runBlock, runs - block * runBlock);
        // Rotate who goes first, so none always runs right after the same neighbour.
        for (let offset = 0; offset < perPath.length; offset += 1) {
          const entry = perPath[(turn + block + offset) % perPath.length];
          if (entry === undefined) continue;
          const taken = await entry.path.samples(steps, count);
          if (round < 0) continue;
          const list = samples.get(key(entry.name, steps)) as PathSample[][];
          list[round] = [...(list[round] ?? []), ...taken];
        }
      }
    }
  }
  const byLength = new Map<Length, Map<PathName, Figures>>();
  for (const steps of lengths) {
    const figures = new Map<PathName, Figures>();
    for (const path of paths) {
      const list = (samples.get(key(path.name, steps)) ?? []).flat();
      const perStep = list.map((entry) => entry.totalNanoseconds / steps / 1000).sort((left, right) => left - right);
      figures.set(path.name, {
        perStepMicroseconds: median(perStep),
        meanPerStepMicroseconds: perStep.reduce((sum, value) => sum + value, 0) / Math.max(1, perStep.length),
        p90PerStepMicroseconds: perStep[Math.min(perStep.length - 1, Math.floor(perStep.length * 0.9))] ?? Number.NaN,
        stepAtLengthMicroseconds: median(list.flatMap((entry) => entry.tailStepNanoseconds)) / 1000,
        runs: list.length,
      });
    }
    byLength.set(steps, figures);
  }
  const flatByRound = new Map<PathName, number>();
  const tailMedian = (list: readonly PathSample[] | undefined) =>
    median((list ?? []).flatMap((entry) => entry.tailStepNanoseconds));
  for (const path of paths) {
    const short = samples.get(key(path.name, 20)) ?? [];
    const long = samples.get(key(path.name, 500)) ?? [];
    const ratios = long.map((list, round) => tailMedian(list) / tailMedian(short[round]));
    flatByRound.set(path.name, median(ratios));
  }
  return { byLength, flatByRound };
}

/** One run of each arbiter configuration with SQLite counted, per step. */
async function countSqlitePerStep(paths: readonly PathWorker[], steps: number): Promise<Map<PathName, SqliteCounts>> {
  const counted = new Map<PathName, SqliteCounts>();
  for (const path of paths) {
    if (path.name !== 'ai_sdk') counted.set(path.name, await path.count(steps));
  }
  return counted;
}

const fixed = (value: number, digits = 1) => value.toFixed(digits);
const pad = (text: string, width: number) => text.padEnd(width);
const padLeft = (text: string, width: number) => text.padStart(width);

export async function runAgentPathsBench(): Promise<BenchResult> {
  const paths = pathNames.map((name) => new PathWorker(name));
  try {
    // Every path's code optimised before anything is timed: 60 short runs and one long one each.
    for (const path of paths) {
      await path.samples(20, 60);
      await path.samples(200, 1);
    }
    const { byLength, flatByRound } = await measureLengths(paths);
    const counts = await countSqlitePerStep(paths, 20);
    const figure = (name: PathName, steps: Length) => byLength.get(steps)?.get(name) as Figures;

    const labelWidth = Math.max(...pathNames.map((name) => pathLabels[name].length)) + 2;
    const header = `  ${pad('', labelWidth)}${lengths.map((steps) => padLeft(`${steps} steps`, 21)).join('')}`;
    const lines = [
      `agent paths (issue 14): one read-only tool, zero-latency model, runs of every path and length interleaved over ${rounds} rounds; medians of`,
      `  ${lengths.map((steps) => `${runsPerLength[steps]} runs at ${steps} steps`).join(', ')}. µs per step: run time / steps;`,
      `  µs at length: median time between two model calls, last ${tailWindow} steps of every run (one whole step).`,
      header,
      `  ${pad('', labelWidth)}${lengths.map(() => padLeft('per step | at length', 21)).join('')}`,
    ];
    for (const name of pathNames) {
      const cells = lengths.map((steps) => {
        const entry = figure(name, steps);
        return padLeft(`${fixed(entry.perStepMicroseconds)} | ${fixed(entry.stepAtLengthMicroseconds)}`, 21);
      });
      lines.push(`  ${pad(pathLabels[name], labelWidth)}${cells.join('')}`);
    }

    const aiSdkStep = figure('ai_sdk', 20).perStepMicroseconds;
    const targets: Target[] = [
      target({
        id: 'gated_memory_step_vs_ai_sdk',
        description: 'arbiter runAgent + tier gate + SQLite audit (:memory:) / AI SDK, µs per step at 20 steps',
        value: figure('arbiter_memory', 20).perStepMicroseconds / aiSdkStep,
        comparison: '<=',
        limit: 0.1,
      }),
      target({
        id: 'durable_step_vs_ai_sdk',
        description: 'arbiter runSession on a SQLite file, commit per step, gate + audit / AI SDK in memory, 20 steps',
        value: figure('arbiter_durable', 20).perStepMicroseconds / aiSdkStep,
        comparison: '<=',
        limit: 0.5,
      }),
    ];
    for (const name of arbiterPaths) {
      targets.push(
        target({
          id: `${name}_flat_500_vs_20`,
          description: `${pathLabels[name].trim()}: step at 500 steps / step at 20 steps`,
          value: figure(name, 500).stepAtLengthMicroseconds / figure(name, 20).stepAtLengthMicroseconds,
          comparison: '<=',
          limit: 1.2,
        }),
      );
    }
    const [memoryRatio, durableRatio, ...flat] = targets;
    const atLength = (name: PathName) =>
      fixed(figure(name, 20).stepAtLengthMicroseconds / figure('ai_sdk', 20).stepAtLengthMicroseconds, 3);
    lines.push(
      `  1. in memory, gate + audit / AI SDK per step (20 steps): ${formatVerdict(memoryRatio as Target)}`,
      `     (the same from the step medians, without the runs' fixed costs and scheduler gaps: ${atLength('arbiter_memory')})`,
      `  2. durable, file + commit per step + audit / AI SDK in memory (20 steps): ${formatVerdict(durableRatio as Target)}`,
      `     (from the step medians: ${atLength('arbiter_durable')})`,
      `     (over all ${figure('arbiter_durable', 20).runs} runs, µs per step: mean ${fixed(figure('arbiter_durable', 20).meanPerStepMicroseconds)}, p90 ${fixed(figure('arbiter_durable', 20).p90PerStepMicroseconds)}; AI SDK mean ${fixed(figure('ai_sdk', 20).meanPerStepMicroseconds)}, p90 ${fixed(figure('ai_sdk', 20).p90PerStepMicroseconds)})`,
      '  3. flat with length, step at 500 steps / step at 20 steps:',
      ...flat.map((entry, index) => {
        const name = arbiterPaths[index] as PathName;
        return `     ${pad(name, 26)}${formatVerdict(entry, 2)}  (median of the ${rounds} rounds' own ratios: ${fixed(flatByRound.get(name) ?? Number.NaN, 2)})`;
      }),
      `     (AI SDK, for comparison: ${fixed(figure('ai_sdk', 500).stepAtLengthMicroseconds / figure('ai_sdk', 20).stepAtLengthMicroseconds, 2)})`,
      '  SQLite per step (one 20-step run counted): prepares, writes, reads, transactions, autocommits, commits:',
    );
    for (const [name, entry] of counts) {
      const perStep = (value: number) => fixed(value / 20, 2);
      lines.push(
        `     ${pad(name, 26)}${perStep(entry.prepares)}, ${perStep(entry.writes)}, ${perStep(entry.reads)}, ${perStep(entry.transactions)}, ${perStep(entry.autocommitWrites)}, ${perStep(commitsOf(entry))}  (transaction() built ${perStep(entry.transactionFunctions)})`,
      );
    }
    const durableCounts = counts.get('arbiter_durable');
    if (durableCounts !== undefined) {
      lines.push('     arbiter_durable writes by statement (whole 20-step run):');
      for (const [sql, count] of Object.entries(durableCounts.writesBySql)) lines.push(`       ${count}× ${sql}`);
      for (const [sql, count] of Object.entries(durableCounts.readsBySql)) lines.push(`       ${count}× (read) ${sql}`);
    }

    const table: Record<string, Record<string, Figures>> = {};
    for (const name of pathNames) {
      table[name] = Object.fromEntries(lengths.map((steps) => [String(steps), figure(name, steps)]));
    }
    return {
      lines,
      ratios: Object.fromEntries(targets.map((entry) => [entry.id, entry.value])),
      targets,
      figures: { agentPaths: table, sqlitePerRun20Steps: Object.fromEntries(counts) },
    };
  } finally {
    await Promise.all(paths.map((path) => path.close()));
  }
}

if (isMainModule(import.meta.url)) {
  const { lines } = await runAgentPathsBench();
  for (const line of lines) console.log(line);
}
