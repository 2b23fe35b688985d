/**
 * One configuration of the agent-paths benchmark in a worker thread of its
 * own: its own V8 isolate, so its own heap, collector and JIT feedback, as
 * in an application that runs one configuration. In one isolate the five
 * configurations shared all three: a run paid for collections of the other
 * configurations' garbage, and the call sites they share (`runAgent`, the
 * journal, the audit log) went polymorphic, which no application that
 * picks one configuration sees. The main thread still interleaves the
 * configurations round by round; only one worker runs at a time.
 *
 * Messages in: `{ kind: 'samples', steps, count }` (timed runs, back to
 * back), `{ kind:
 * 'count', steps }` (one run with SQLite counted), `{ kind: 'close' }`.
 * Each answer is `{ ok: true, value }` or `{ ok: false, message }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createPath, type Path, type PathName, type PathRun, samplePathRun } from './agent-paths.js';
import type { LangGraphPath } from './langgraph-path.js';
import { installSqliteCounter } from './sqlite-counter.js';

/** A configuration a worker runs: one of `agent-paths.ts`, or LangGraph's (loaded only in its own worker). */
export type WorkerPathName = PathName | LangGraphPath['name'];

export type PathWorkerRequest =
  | { readonly kind: 'samples'; readonly steps: number; readonly count: number }
  | { readonly kind: 'count'; readonly steps: number }
  | { readonly kind: 'close' };

export type PathWorkerAnswer = { readonly ok: true; readonly value: unknown } | { readonly ok: false; message: string };

const port = parentPort;
if (port === null) throw new Error('agent-path-worker runs only as a worker thread');
const name = (workerData as { name: WorkerPathName }).name;
const path: Pick<Path, 'task' | 'close'> =
  name === 'langgraph' || name === 'langgraph_normal'
    ? (await import('./langgraph-path.js')).langGraphPath({ synchronousNormal: name === 'langgraph_normal' })
    : createPath(name);
const tasks = new Map<number, PathRun>();
const taskOf = (steps: number): PathRun => {
  let task = tasks.get(steps);
  if (task === undefined) {
    task = path.task(steps);
    tasks.set(steps, task);
  }
  return task;
};

async function answer(request: PathWorkerRequest): Promise<unknown> {
  switch (request.kind) {
    case 'samples': {
      const taken = [];
      for (let run = 0; run < request.count; run += 1)
        taken.push(await samplePathRun(taskOf(request.steps), request.steps));
      return taken;
    }
    case 'count': {
      const task = path.task(request.steps);
      await task.prepare?.();
      const counter = installSqliteCounter();
      try {
        await task.run();
      } finally {
        counter.uninstall();
      }
      return counter.counts;
    }
    case 'close':
      path.close();
      port?.close();
      return undefined;
  }
}

port.on('message', (request: PathWorkerRequest) => {
  answer(request).then(
    (value) => {
      if (request.kind !== 'close') port.postMessage({ ok: true, value } satisfies PathWorkerAnswer);
    },
    (error: unknown) =>
      port.postMessage({
        ok: false,
        message: error instanceof Error ? (error.stack ?? error.message) : String(error),
      } satisfies PathWorkerAnswer),
  );
});
