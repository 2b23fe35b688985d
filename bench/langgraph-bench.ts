/**
 * Issue 48 (keep): arbiter's durable step against LangGraph.js with its
 * SQLite checkpointer, the same 20-step task (19 calls of one read-only
 * tool on a zero-latency model, then an answer), `npm run bench --
 * langgraph`. The same scheme as `bench -- paths`: each configuration in a
 * worker thread of its own (`agent-path-worker.ts`), blocks of 5 runs back
 * to back, interleaved across configurations round by round (rotating who
 * goes first), after a warm-up that is not counted.
 *
 * Configurations: arbiter's `runSession` on a SQLite file (WAL,
 * `synchronous = NORMAL`, every step committed, tier gate and audit);
 * LangGraph's agent graph with `SqliteSaver.fromConnString` as it comes
 * (WAL, SQLite's default `synchronous`, FULL here: an `fsync` per commit);
 * and the same graph with `synchronous = NORMAL`, the durability arbiter
 * runs with. The target is judged on the second (the same durability, the
 * stricter comparison for arbiter) and printed for both, on wall time per
 * step (median of runs) and on CPU time per step. One counted run of each
 * reports what SQLite was asked per step.
 *
 * BENCH_RUNS_SCALE (default 1) scales the number of rounds.
 */
import { loadavg } from 'node:os';
import type { WorkerPathName } from './agent-path-worker.js';
import type { PathSample } from './agent-paths.js';
import { PathWorker } from './agent-paths-bench.js';
import { type BenchResult, formatVerdict, isMainModule, median, type Target, target } from './measure.js';
import { commitsOf } from './sqlite-counter.js';

const steps = 20;
const runBlock = 5;
const scale = Number(process.env.BENCH_RUNS_SCALE ?? '1');
const rounds = Math.max(3, Math.round(8 * scale));
const names = ['arbiter_durable', 'langgraph_normal', 'langgraph'] as const satisfies readonly WorkerPathName[];
type Name = (typeof names)[number];

const labels: Record<Name, string> = {
  arbiter_durable: 'arbiter runSession, SQLite file (synchronous NORMAL), gate + audit',
  langgraph_normal: 'LangGraph StateGraph + ToolNode, SqliteSaver file, synchronous NORMAL',
  langgraph: 'LangGraph, SqliteSaver.fromConnString as it comes (synchronous FULL)',
};

/** The target of issue 48: arbiter durable ≤ 0.05 of LangGraph's step with its SQLite checkpointer. */
const limit = 0.05;

interface Figures {
  /** Median over runs of run time / steps, µs. */
  readonly perStep: number;
  /** Median time between two model calls, the last 19 steps of every run, µs. */
  readonly atLength: number;
  /** Median over runs of the process's CPU time / steps, µs. */
  readonly cpuPerStep: number;
}

const figuresOf = (samples: readonly PathSample[]): Figures => ({
  perStep: median(samples.map((sample) => sample.totalNanoseconds / steps / 1000)),
  atLength: median(samples.flatMap((sample) => sample.tailStepNanoseconds)) / 1000,
  cpuPerStep: median(samples.map((sample) => sample.cpuMicroseconds / steps)),
});

const fixed = (value: number, digits = 1) => value.toFixed(digits);
const loadAverage = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

export async function runLangGraphBench(): Promise<BenchResult> {
  const loadBefore = loadAverage();
  const workers = names.map((name) => new PathWorker<Name>(name));
  try {
    // Warm-up, not counted: arbiter as in `bench -- paths` (60 runs); LangGraph's runs are ~100 times longer.
    for (const worker of workers) await worker.samples(steps, worker.name === 'arbiter_durable' ? 60 : 10);
    const samples = new Map<Name, PathSample[][]>(names.map((name) => [name, []]));
    for (let round = 0; round < rounds; round += 1) {
      for (let offset = 0; offset < workers.length; offset += 1) {
        const worker = workers[(round + offset) % workers.length] as PathWorker<Name>;
        (samples.get(worker.name) as PathSample[][])[round] = await worker.samples(steps, runBlock);
      }
    }
    const counts = new Map(
      await Promise.all(workers.map(async (worker) => [worker.name, await worker.count(steps)] as const)),
    );
    const figures = new Map(names.map((name) => [name, figuresOf((samples.get(name) ?? []).flat())]));
    const figure = (name: Name) => figures.get(name) as Figures;
    /** The median, and the range, of the rounds' own ratios arbiter ÷ `name` (each round's blocks ran back to back). */
    const roundRatios = (name: Name) => {
      const ratios = (samples.get('arbiter_durable') ?? []).map(
        (list, round) => figuresOf(list).perStep / figuresOf(samples.get(name)?.[round] ?? []).perStep,
      );
      return { median: median(ratios), low: Math.min(...ratios), high: Math.max(...ratios) };
    };
    const targets: Target[] = (['langgraph_normal', 'langgraph'] as const).map((name) =>
      target({
        id: name === 'langgraph_normal' ? 'durable_step_vs_langgraph_same_durability' : 'durable_step_vs_langgraph',
        description: `arbiter durable / ${labels[name]}, µs per step at ${steps} steps`,
        value: figure('arbiter_durable').perStep / figure(name).perStep,
        comparison: '<=',
        limit,
      }),
    );
    const loadAfter = loadAverage();
    const width = Math.max(...names.map((name) => labels[name].length)) + 2;
    const lines = [
      `langgraph (issue 48): ${steps}-step task, one read-only tool, zero-latency model; each configuration in its own worker,`,
      `  blocks of ${runBlock} runs interleaved over ${rounds} rounds after a warm-up; load average ${loadBefore} before, ${loadAfter} after`,
      `  ${''.padEnd(width)}  µs per step | at length | CPU per step`,
      ...names.map((name) => {
        const entry = figure(name);
        return `  ${labels[name].padEnd(width)}${fixed(entry.perStep).padStart(13)} | ${fixed(entry.atLength).padStart(9)} | ${fixed(entry.cpuPerStep).padStart(12)}`;
      }),
    ];
    for (const [index, name] of (['langgraph_normal', 'langgraph'] as const).entries()) {
      const rounds = roundRatios(name);
      lines.push(
        `  ${index + 1}. arbiter durable / ${name}: ${formatVerdict(targets[index] as Target, 4)}`,
        `     (rounds' own ratios: median ${fixed(rounds.median, 4)}, range ${fixed(rounds.low, 4)}–${fixed(rounds.high, 4)};` +
          ` at length ${fixed(figure('arbiter_durable').atLength / figure(name).atLength, 4)};` +
          ` CPU time ${fixed(figure('arbiter_durable').cpuPerStep / figure(name).cpuPerStep, 4)})`,
      );
    }
    lines.push('  SQLite per step (one 20-step run counted): statements run, writes, transactions, commits, rows:');
    for (const [name, entry] of counts) {
      const perStep = (value: number) => fixed(value / steps, 2);
      lines.push(
        `     ${name.padEnd(18)}${perStep(entry.writes + entry.reads)}, ${perStep(entry.writes)}, ${perStep(entry.transactions)}, ${perStep(commitsOf(entry))}, ${perStep(entry.rows)}`,
      );
    }
    return {
      lines,
      ratios: Object.fromEntries(targets.map((entry) => [entry.id, entry.value])),
      targets,
      figures: {
        langGraph: Object.fromEntries(figures),
        sqlitePerRun20Steps: Object.fromEntries(counts),
        loadAverage: { before: loadBefore, after: loadAfter },
      },
    };
  } finally {
    await Promise.all(workers.map((worker) => worker.close()));
  }
}

if (isMainModule(import.meta.url)) {
  const { lines } = await runLangGraphBench();
  for (const line of lines) console.log(line);
}
