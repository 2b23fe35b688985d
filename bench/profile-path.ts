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
 */
import { createPath, type PathName, pathLabels } from './agent-paths.js';
import { isMainModule, median } from './measure.js';
import { commitsOf, installSqliteCounter } from './sqlite-counter.js';

export async function profilePath({
  name,
  steps,
  runs,
  countSqlite,
}: {
  name: PathName;
  steps: number;
  runs: number;
  countSqlite: boolean;
}): Promise<string[]> {
  const path = createPath(name);
  const task = path.task(steps);
  const perStep: number[] = [];
  const counter = countSqlite ? installSqliteCounter() : undefined;
  try {
    for (let run = 0; run < runs; run += 1) {
      await task.prepare?.();
      const start = process.hrtime.bigint();
      await task.run();
      perStep.push(Number(process.hrtime.bigint() - start) / steps);
    }
  } finally {
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
  });
  for (const line of lines) console.log(line);
}
