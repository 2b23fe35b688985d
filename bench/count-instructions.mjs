/**
 * Instructions per step of one per-step path of any build, counted by
 * valgrind's callgrind in steady state (issue 48). Plain JavaScript, so it
 * runs against an older build's `dist-bench` too (`npm run bench --
 * compare REV` leaves REV's in `$TMPDIR/arbiter-compare-<commit>`), whose
 * `profile-path.js` may lack `--callgrind-after`:
 *
 *   valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes --callgrind-out-file=/tmp/cg.out \
 *     node bench/count-instructions.mjs "$PWD/dist-bench" durable_mem 250 200
 *   grep totals /tmp/cg.out-01   # the main thread; divide by (250 - 200) runs × 20 steps
 *
 * Arguments: the build's `dist-bench` folder (absolute), the path
 * (`memory`: `runAgent` with gate and SQLite audit; `durable_mem`:
 * `runSession` on SQLite `:memory:`, every step committed; `durable`: the
 * same on a file), runs in all, runs before counting starts. Warm up for
 * a few hundred runs: after 30, part of the code counted is still V8's
 * baseline code and TurboFan is still compiling.
 */
import { execFileSync } from 'node:child_process';

const [dist, path = 'memory', runsArgument = '350', afterArgument = '300'] = process.argv.slice(2);
if (dist === undefined)
  throw new Error('usage: count-instructions.mjs <dist-bench folder> [memory|durable_mem|durable] [runs] [after]');
const paths = await import(`${dist}/bench/agent-paths.js`);
const chosen =
  path === 'memory'
    ? paths.arbiterMemoryPath()
    : paths.arbiterDurablePath(path === 'durable_mem' ? { inMemoryStore: true } : {});
const task = chosen.task(20);
const runs = Number(runsArgument);
const after = Number(afterArgument);
const instrumentation = (state) =>
  execFileSync('callgrind_control', ['-i', state, String(process.pid)], { stdio: 'ignore' });
for (let run = 0; run < runs; run += 1) {
  if (run === after) instrumentation('on');
  await task.prepare?.();
  await task.run();
}
instrumentation('off');
chosen.close();
console.log(`${path}: ${runs - after} runs of 20 steps counted after ${after}`);
