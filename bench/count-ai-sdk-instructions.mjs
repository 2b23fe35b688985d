/**
 * Instructions per step of the `bench -- ai-sdk` task (AI SDK 7 or 6,
 * `generateText`, 20 steps), plain or through `arbiterTools`, counted by
 * valgrind's callgrind in steady state (issue 48). Plain JavaScript, so it
 * runs against any build's `dist-bench`:
 *
 *   valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes --callgrind-out-file=/tmp/cg.out \
 *     node bench/count-ai-sdk-instructions.mjs "$PWD/dist-bench" 7 subject 500 400
 *   grep totals /tmp/cg.out-01   # the main thread; divide by (500 - 400) tasks × 20 steps
 *
 * Arguments: the build's `dist-bench` folder (absolute), the SDK (7 or 6),
 * the configuration (`subject`: arbiterTools; `json`, `zod`: the plain
 * SDK tools), tasks in all, tasks before counting starts. Without valgrind
 * (`--no-callgrind` as sixth argument) it prints the bytes allocated per
 * step instead (run node with `--expose-gc --max-semi-space-size=128
 * --min-semi-space-size=128` and count few tasks, so that nothing is
 * collected while counting).
 */
import { execFileSync } from 'node:child_process';

const [dist, sdkArgument = '7', which = 'subject', tasksArgument = '500', afterArgument = '400', mode] =
  process.argv.slice(2);
if (dist === undefined)
  throw new Error('usage: count-ai-sdk-instructions.mjs <dist-bench folder> [7|6] [subject|json|zod] [tasks] [after]');
const { sides } = await import(`${dist}/bench/ai-sdk-tools-bench.js`);
const side = sides(Number(sdkArgument));
const task = which === 'subject' ? side.subject : side.baselines[which];
const tasks = Number(tasksArgument);
const after = Number(afterArgument);
const callgrind = mode !== '--no-callgrind';
const instrumentation = (state) =>
  execFileSync('callgrind_control', ['-i', state, String(process.pid)], { stdio: 'ignore' });
let before = 0;
for (let run = 0; run < tasks; run += 1) {
  if (run === after) {
    if (callgrind) instrumentation('on');
    else {
      globalThis.gc?.();
      if (process.env.MARK === '1') console.error('-- counting starts --');
      before = process.memoryUsage().heapUsed;
    }
  }
  await task();
}
if (callgrind) instrumentation('off');
else {
  const bytes = process.memoryUsage().heapUsed - before;
  console.log(`${(bytes / ((tasks - after) * 20) / 1024).toFixed(2)} KB allocated per step`);
}
console.log(`AI SDK ${sdkArgument} ${which}: ${tasks - after} tasks of 20 steps counted after ${after}`);
