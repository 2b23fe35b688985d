/**
 * Issue 14, "performance as a user runs it": the AI SDK's `generateText`
 * in memory against arbiter with the tier gate and a SQLite audit log, in
 * memory (`runAgent`) and durable (`runSession` on a SQLite file, every
 * step committed), at 20, 200 and 500 steps, in one process. Runs of all
 * configurations are interleaved (one of each, round after round), so a
 * busy machine slows them alike.
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
import { createPath, type Path, type PathName, type PathRun, pathLabels } from './agent-paths.js';
import { type BenchResult, formatVerdict, isMainModule, median, type Target, target } from './measure.js';
import { commitsOf, installSqliteCounter, type SqliteCounts } from './sqlite-counter.js';

const lengths = [20, 200, 500] as const;
type Length = (typeof lengths)[number];
const scale = Number(process.env.BENCH_RUNS_SCALE ?? '1');
const runsPerLength: Record<Length, number> = {
  20: Math.max(5, Math.round(60 * scale)),
  200: Math.max(3, Math.round(8 * scale)),
  500: Math.max(3, Math.round(4 * scale)),
};
/** Per length, after the warm-up of every path below; the AI SDK's 500-step run alone takes seconds. */
const warmUpRuns: Record<Length, number> = { 20: 5, 200: 1, 500: 0 };
/** Steps at the end of a run whose times make "step at length". */
const window = 19;
const pathNames: readonly PathName[] = [
  'ai_sdk',
  'arbiter_memory',
  'arbiter_memory_context',
  'arbiter_durable',
  'arbiter_durable_context',
];
const arbiterPaths = pathNames.filter((name) => name !== 'ai_sdk');

interface Sample {
  readonly totalNanoseconds: number;
  /** Nanoseconds between two model calls, for each of the last `window` steps. */
  readonly tailStepNanoseconds: readonly number[];
}

interface Figures {
  /** Median over runs of the run's time / steps. */
  readonly perStepMicroseconds: number;
  /** Median of the times of the last steps of every run (a median: a disk stall in one step does not move it). */
  readonly stepAtLengthMicroseconds: number;
  readonly runs: number;
}

async function sample(task: PathRun, steps: number): Promise<Sample> {
  await task.prepare?.();
  const start = process.hrtime.bigint();
  await task.run();
  const totalNanoseconds = Number(process.hrtime.bigint() - start);
  const { stamps } = task;
  if (stamps.length !== steps) throw new Error(`expected ${steps} model calls, saw ${stamps.length}`);
  const tailStepNanoseconds: number[] = [];
  for (let index = steps - window; index < steps; index += 1) {
    tailStepNanoseconds.push(Number((stamps[index] as bigint) - (stamps[index - 1] as bigint)));
  }
  return { totalNanoseconds, tailStepNanoseconds };
}

async function measureLength(paths: readonly Path[], steps: Length): Promise<Map<PathName, Figures>> {
  const tasks = paths.map((path) => ({ name: path.name, task: path.task(steps) }));
  for (let round = 0; round < warmUpRuns[steps]; round += 1) {
    for (const { task } of tasks) await sample(task, steps);
  }
  const samples = new Map<PathName, Sample[]>(tasks.map(({ name }) => [name, []]));
  const runs = runsPerLength[steps];
  for (let round = 0; round < runs; round += 1) {
    // Rotate who goes first, so none always runs right after the same neighbour.
    for (let offset = 0; offset < tasks.length; offset += 1) {
      const entry = tasks[(round + offset) % tasks.length];
      if (entry === undefined) continue;
      samples.get(entry.name)?.push(await sample(entry.task, steps));
    }
  }
  const figures = new Map<PathName, Figures>();
  for (const [name, list] of samples) {
    figures.set(name, {
      perStepMicroseconds: median(list.map((entry) => entry.totalNanoseconds / steps)) / 1000,
      stepAtLengthMicroseconds: median(list.flatMap((entry) => entry.tailStepNanoseconds)) / 1000,
      runs: list.length,
    });
  }
  return figures;
}

/** One run of each arbiter configuration with SQLite counted, per step. */
async function countSqlitePerStep(paths: readonly Path[], steps: number): Promise<Map<PathName, SqliteCounts>> {
  const counted = new Map<PathName, SqliteCounts>();
  for (const path of paths) {
    if (path.name === 'ai_sdk') continue;
    const task = path.task(steps);
    await task.prepare?.();
    const counter = installSqliteCounter();
    try {
      await task.run();
    } finally {
      counter.uninstall();
    }
    counted.set(path.name, counter.counts);
  }
  return counted;
}

const fixed = (value: number, digits = 1) => value.toFixed(digits);
const pad = (text: string, width: number) => text.padEnd(width);
const padLeft = (text: string, width: number) => text.padStart(width);

export async function runAgentPathsBench(): Promise<BenchResult> {
  const paths = pathNames.map(createPath);
  try {
    // Every path's code optimised before anything is timed: 60 short runs and one long one each.
    for (const path of paths) {
      const short = path.task(20);
      for (let run = 0; run < 60; run += 1) await sample(short, 20);
      await sample(path.task(200), 200);
    }
    const byLength = new Map<Length, Map<PathName, Figures>>();
    for (const steps of lengths) byLength.set(steps, await measureLength(paths, steps));
    const counts = await countSqlitePerStep(paths, 20);
    const figure = (name: PathName, steps: Length) => byLength.get(steps)?.get(name) as Figures;

    const labelWidth = Math.max(...pathNames.map((name) => pathLabels[name].length)) + 2;
    const header = `  ${pad('', labelWidth)}${lengths.map((steps) => padLeft(`${steps} steps`, 21)).join('')}`;
    const lines = [
      'agent paths (issue 14): one read-only tool, zero-latency model, runs interleaved; medians of',
      `  ${lengths.map((steps) => `${runsPerLength[steps]} runs at ${steps} steps`).join(', ')}. µs per step: run time / steps;`,
      `  µs at length: median time between two model calls, last ${window} steps of every run (one whole step).`,
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
      '  3. flat with length, step at 500 steps / step at 20 steps:',
      ...flat.map((entry, index) => `     ${pad(arbiterPaths[index] as string, 26)}${formatVerdict(entry, 2)}`),
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
    for (const path of paths) path.close();
  }
}

if (isMainModule(import.meta.url)) {
  const { lines } = await runAgentPathsBench();
  for (const line of lines) console.log(line);
}
