/**
 * Issue 14's leak check: 10,000 runs of `runSession` on one `EventBus`
 * (with one subscriber) and one store, each run a new session of a short
 * task (2 tool calls, then the answer) through the tier gate and the audit
 * log. The JS heap after a forced GC at the end must be within 5% of the
 * heap after the first 1,000 runs. The store is SQLite on `:memory:`: its
 * pages live outside the JS heap, so what grows there is rows, not a leak.
 *
 * Needs `node --expose-gc`; without it the benchmark runs itself again as
 * a child process that has it, and reads the child's JSON line.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { arbiterDurablePath } from './agent-paths.js';
import { type BenchResult, formatVerdict, isMainModule, target } from './measure.js';

const totalRuns = Number(process.env.BENCH_LEAK_RUNS ?? '10000');
const baselineRuns = Math.round(totalRuns / 10);
const stepsPerRun = 3;

interface LeakFigures {
  readonly runs: number;
  readonly baselineRuns: number;
  readonly heapAfterBaselineBytes: number;
  readonly heapAfterAllBytes: number;
  readonly rssAfterBaselineBytes: number;
  readonly rssAfterAllBytes: number;
  readonly seconds: number;
}

function collectedHeap(): number {
  const gc = globalThis.gc as (() => void) | undefined;
  if (gc === undefined) throw new Error('run with node --expose-gc');
  for (let pass = 0; pass < 3; pass += 1) gc();
  return process.memoryUsage().heapUsed;
}

async function measureLeak(): Promise<LeakFigures> {
  const path = arbiterDurablePath({ inMemoryStore: true });
  const task = path.task(stepsPerRun);
  const started = performance.now();
  let heapAfterBaselineBytes = 0;
  let rssAfterBaselineBytes = 0;
  try {
    for (let run = 1; run <= totalRuns; run += 1) {
      await task.prepare?.();
      await task.run();
      if (run === baselineRuns) {
        heapAfterBaselineBytes = collectedHeap();
        rssAfterBaselineBytes = process.memoryUsage().rss;
      }
    }
    return {
      runs: totalRuns,
      baselineRuns,
      heapAfterBaselineBytes,
      heapAfterAllBytes: collectedHeap(),
      rssAfterBaselineBytes,
      rssAfterAllBytes: process.memoryUsage().rss,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    path.close();
  }
}

function inChild(): LeakFigures {
  const child = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--json'], {
    encoding: 'utf8',
    env: process.env,
    maxBuffer: 16 * 1024 * 1024,
  });
  const line = child.stdout.trim().split('\n').at(-1) ?? '';
  if (child.status !== 0 || !line.startsWith('{')) {
    throw new Error(`the leak check's child process failed (${child.status}): ${child.stderr.slice(-2000)}`);
  }
  return JSON.parse(line) as LeakFigures;
}

const mebibytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;

export async function runLeakBench(): Promise<BenchResult> {
  const figures = globalThis.gc === undefined ? inChild() : await measureLeak();
  const growth = target({
    id: 'heap_growth_10000_vs_1000_runs',
    description: `JS heap after ${figures.runs} runs / after ${figures.baselineRuns} runs (forced GC), one EventBus and one store`,
    value: figures.heapAfterAllBytes / figures.heapAfterBaselineBytes,
    comparison: '<=',
    limit: 1.05,
  });
  return {
    lines: [
      `leak: ${figures.runs} runSession runs of ${stepsPerRun} steps on one EventBus and one SQLite store (:memory:), gate + audit, ${figures.seconds.toFixed(1)} s`,
      `  heap after ${figures.baselineRuns} runs ${mebibytes(figures.heapAfterBaselineBytes)}, after ${figures.runs} ${mebibytes(figures.heapAfterAllBytes)} (rss ${mebibytes(figures.rssAfterBaselineBytes)} → ${mebibytes(figures.rssAfterAllBytes)}, SQLite pages included)`,
      `  5. heap after ${figures.runs} / after ${figures.baselineRuns} runs: ${formatVerdict(growth)}`,
    ],
    ratios: { heapGrowth: growth.value },
    targets: [growth],
    figures: { leak: figures },
  };
}

if (isMainModule(import.meta.url)) {
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(await measureLeak()));
  } else {
    const { lines } = await runLeakBench();
    for (const line of lines) console.log(line);
  }
}
