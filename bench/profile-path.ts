/**
 * One configuration of the agent-paths benchmark alone, run over and over,
 * to profile it:
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof dist-bench/bench/profile-path.js arbiter_memory 20 3000
 *   node dist-bench/bench/read-cpu-profile.js /tmp/prof/<file>.cpuprofile
 *
 * Arguments: the configuration (see `PathName`), steps per run (default 20),
 * runs (default 2000). Prints the median µs per step of the last half of
 * the runs, and with `--count-sqlite` what SQLite was asked per step.
 *
 * Instructions per step, which no clock and no other load moves (issue 48):
 * with `--callgrind-after=N` the first N runs are a warm-up, and valgrind's
 * callgrind counts only the runs after them (instrumentation switched on and
 * off with `callgrind_control`), one output file per thread:
 *
 *   valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes --callgrind-out-file=/tmp/cg.out \
 *     node dist-bench/bench/profile-path.js arbiter_memory 20 130 --callgrind-after=30
 *   grep totals /tmp/cg.out-01   # the main thread's instructions; divide by (130 - 30) × 20 steps
 *   callgrind_annotate --inclusive=no /tmp/cg.out-01 | head -40
 *
 * Compare two builds by the main thread's instructions less the garbage
 * collector's (`Scavenger…`, `IterateObjectCache`…): how often V8 collects
 * depends on how its young generation grew during the warm-up, and moves
 * the total by a few percent from one run to the next.
 */
import { execFileSync } from 'node:child_process';
import { createPath, type PathName, pathLabels } from './agent-paths.js';
import { isMainModule, median } from './measure.js';
import { commitsOf, installSqliteCounter } from './sqlite-counter.js';

export async function profilePath({
  name,
  steps,
  runs,
  countSqlite,
  callgrindAfter,
}: {
  name: PathName;
  steps: number;
  runs: number;
  countSqlite: boolean;
  /** Switch callgrind's instrumentation on after this many runs, off after the last (running under valgrind). */
  callgrindAfter?: number | undefined;
}): Promise<string[]> {
  const path = createPath(name);
  const task = path.task(steps);
  const perStep: number[] = [];
  const counter = countSqlite ? installSqliteCounter() : undefined;
  try {
    for (let run = 0; run < runs; run += 1) {
      if (run === callgrindAfter) callgrindInstrumentation('on');
      await task.prepare?.();
      const start = process.hrtime.bigint();
      await task.run();
      perStep.push(Number(process.hrtime.bigint() - start) / steps);
    }
  } finally {
    if (callgrindAfter !== undefined && callgrindAfter < runs) callgrindInstrumentation('off');
    counter?.uninstall();
    path.close();
  }
  const lines = [
    `${pathLabels[name].trim()}: ${runs} runs of ${steps} steps, ${(median(perStep.slice(Math.floor(runs / 2))) / 1000).toFixed(2)} µs per step (median, last half)`,
  ];
  if (counter !== undefined) {
    const all = runs * steps;
    const { counts } = counter;
    lines.push(
      `  per step: ${(counts.prepares / all).toFixed(2)} prepares, ${(counts.writes / all).toFixed(2)} writes, ${(counts.reads / all).toFixed(2)} reads, ${(counts.transactions / all).toFixed(2)} transactions, ${(counts.autocommitWrites / all).toFixed(2)} autocommit writes, ${(commitsOf(counts) / all).toFixed(2)} commits`,
    );
  }
  return lines;
}

/** Switches valgrind callgrind's instrumentation of this process on or off. */
function callgrindInstrumentation(state: 'on' | 'off'): void {
  execFileSync('callgrind_control', ['-i', state, String(process.pid)], { stdio: 'ignore' });
}

if (isMainModule(import.meta.url)) {
  const [name = 'arbiter_memory', steps = '20', runs = '2000'] = process.argv
    .slice(2)
    .filter((a) => !a.startsWith('--'));
  if (!(name in pathLabels))
    throw new Error(`unknown configuration ${name}; one of ${Object.keys(pathLabels).join(', ')}`);
  const lines = await profilePath({
    name: name as PathName,
    steps: Number(steps),
    runs: Number(runs),
    countSqlite: process.argv.includes('--count-sqlite'),
    callgrindAfter: callgrindAfterArgument(),
  });
  for (const line of lines) console.log(line);
}

function callgrindAfterArgument(): number | undefined {
  const given = process.argv.find((argument) => argument.startsWith('--callgrind-after='));
  return given === undefined ? undefined : Number(given.slice('--callgrind-after='.length));
}
