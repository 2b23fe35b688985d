/**
 * One configuration of the agent-paths task, of one build, in a worker
 * thread of its own: `workerData.module` is that build's compiled
 * `bench/agent-paths.js` (this checkout's, or a revision's built beside it
 * by `compare-revisions.ts`), `workerData.name` the configuration. The
 * timing loop is this file's, the same for both builds; only the code it
 * times is the build's.
 *
 * Messages in: `{ kind: 'runs', steps, count }` (that many runs back to
 * back, each prepared untimed; answers the µs per step of each), `{ kind:
 * 'close' }`. Each answer is `{ ok: true, value }` or `{ ok: false, message }`.
 */
import { parentPort, workerData } from 'node:worker_threads';

export type CompareWorkerRequest =
  | { readonly kind: 'runs'; readonly steps: number; readonly count: number }
  | { readonly kind: 'close' };

export type CompareWorkerAnswer =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly message: string };

/** What the worker needs of a build's `agent-paths.js`: stable since the module was written (2026-12-01). */
interface PathsModule {
  createPath(name: string): {
    task(steps: number): { prepare?: () => Promise<void>; run: () => Promise<void> };
    close(): void;
  };
}

const port = parentPort;
if (port === null) throw new Error('compare-worker runs only as a worker thread');
const { module, name } = workerData as { module: string; name: string };
const paths = (await import(module)) as PathsModule;
const path = paths.createPath(name);
const tasks = new Map<number, ReturnType<typeof path.task>>();

/** µs per step of each run: wall time, and the process's CPU time (every thread; the other builds' workers idle meanwhile). */
export interface RunTimes {
  readonly wall: number[];
  readonly cpu: number[];
}

async function runs(steps: number, count: number): Promise<RunTimes> {
  let task = tasks.get(steps);
  if (task === undefined) {
    task = path.task(steps);
    tasks.set(steps, task);
  }
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let index = 0; index < count; index += 1) {
    await task.prepare?.();
    const cpuBefore = process.cpuUsage();
    const start = process.hrtime.bigint();
    await task.run();
    wall.push(Number(process.hrtime.bigint() - start) / steps / 1000);
    const used = process.cpuUsage(cpuBefore);
    cpu.push((used.user + used.system) / steps);
  }
  return { wall, cpu };
}

port.on('message', (request: CompareWorkerRequest) => {
  if (request.kind === 'close') {
    path.close();
    port.close();
    return;
  }
  runs(request.steps, request.count).then(
    (value) => port.postMessage({ ok: true, value } satisfies CompareWorkerAnswer),
    (error: unknown) =>
      port.postMessage({
        ok: false,
        message: error instanceof Error ? (error.stack ?? error.message) : String(error),
      } satisfies CompareWorkerAnswer),
  );
});
