/**
 * Where a run of an agent-paths configuration spends its time outside its
 * steps (issue 48): run start to the first model call, the steps between
 * the first and the last model call, and the last model call to the run's
 * end, split into the audit log's flush (`SqliteAuditLog.flush`, the rows
 * of read calls that waited for a transaction: linked into the hash chain
 * and inserted at the run's end) and the rest.
 *
 *   node dist-bench/bench/run-phases.js arbiter_memory 4
 *
 * Arguments: the configuration (default `arbiter_memory`), counted rounds
 * (default 4). It runs in a worker of its own, in the `bench -- paths`
 * regime: one warm-up round, then rounds of three blocks of 5 runs of 20
 * steps (those are counted), 2 runs of 200 steps and one of 500; medians
 * over the counted runs, µs. The flush is timed by wrapping
 * `SqliteAuditLog.prototype.flush` in that worker (synchronous on SQLite).
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { SqliteAuditLog } from '../src/store/sqlite/sqlite-audit-log.js';
import { createPath, type PathName, type PathRun, pathLabels } from './agent-paths.js';
import { isMainModule, median } from './measure.js';

interface PhaseRequest {
  readonly name: PathName;
  readonly rounds: number;
}

/** One counted run, µs. */
interface Phases {
  readonly total: number;
  readonly start: number;
  readonly steps: number;
  readonly end: number;
  readonly flush: number;
}

const microseconds = (from: bigint, to: bigint) => Number(to - from) / 1000;

async function measurePhases({ name, rounds }: PhaseRequest): Promise<string> {
  let flushStart = 0n;
  let flushEnd = 0n;
  const flush = SqliteAuditLog.prototype.flush;
  SqliteAuditLog.prototype.flush = function (this: SqliteAuditLog) {
    flushStart = process.hrtime.bigint();
    const flushed = flush.call(this);
    flushEnd = process.hrtime.bigint();
    return flushed;
  };
  const path = createPath(name);
  const tasks = new Map<number, PathRun>();
  const counted: Phases[] = [];
  const runOnce = async (steps: number, count: boolean) => {
    let task = tasks.get(steps);
    if (task === undefined) {
      task = path.task(steps);
      tasks.set(steps, task);
    }
    await task.prepare?.();
    flushStart = 0n;
    const started = process.hrtime.bigint();
    await task.run();
    const ended = process.hrtime.bigint();
    if (!count) return;
    const first = task.stamps[0] as bigint;
    const last = task.stamps[steps - 1] as bigint;
    counted.push({
      total: microseconds(started, ended),
      start: microseconds(started, first),
      steps: microseconds(first, last),
      end: microseconds(last, ended),
      flush: flushStart === 0n ? 0 : microseconds(flushStart, flushEnd),
    });
  };
  try {
    for (let round = 0; round <= rounds; round += 1) {
      for (let block = 0; block < 3; block += 1) {
        for (let run = 0; run < 5; run += 1) await runOnce(20, round > 0);
        // Another configuration's block runs here in `bench -- paths`.
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      for (let run = 0; run < 2; run += 1) await runOnce(200, false);
      await runOnce(500, false);
    }
  } finally {
    path.close();
    SqliteAuditLog.prototype.flush = flush;
  }
  const of = (key: keyof Phases) => median(counted.map((phases) => phases[key])).toFixed(1);
  return [
    `${pathLabels[name].trim()}: ${counted.length} runs of 20 steps, medians in µs`,
    `  whole run ${of('total')} = start to first model call ${of('start')} + 19 steps ${of('steps')} + last model call to end ${of('end')}`,
    `  of the end: audit flush ${of('flush')}`,
  ].join('\n');
}

if (!isMainThread && (workerData as { phases?: PhaseRequest }).phases !== undefined) {
  const answer = await measurePhases((workerData as { phases: PhaseRequest }).phases);
  parentPort?.postMessage(answer);
} else if (isMainModule(import.meta.url)) {
  const [name = 'arbiter_memory', rounds = '4'] = process.argv.slice(2);
  if (!(name in pathLabels))
    throw new Error(`unknown configuration ${name}; one of ${Object.keys(pathLabels).join(', ')}`);
  const phases: PhaseRequest = { name: name as PathName, rounds: Number(rounds) };
  const worker = new Worker(new URL(import.meta.url), { workerData: { phases } });
  worker.once('message', (answer: string) => console.log(answer));
  worker.once('error', (error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
