/**
 * @module
 * A long-running command started by a package manager's script stops with
 * it. `npm run arbiter -- serve &` puts a shell between npm and node
 * (npm → sh -c → node); `kill $!` reaches npm, npm passes the signal to the
 * shell, and a shell like dash dies without passing it on, leaving the
 * server orphaned and still listening. npm's own child going away is the
 * one sign node gets, so it watches for it.
 */

/**
 * Sends this process `signal` (its own handlers then shut it down as if the
 * signal had come from outside) once the process that started it is gone,
 * when it was started by an npm script (`npm_lifecycle_event` set; yarn and
 * pnpm set it too). Started any other way, e.g. `node dist/src/cli/main.js
 * serve &` from a script that exits, a process may outlive its parent on
 * purpose, and nothing is watched. Returns a function that stops watching.
 *
 * @example
 * const unwatch = stopWhenOrphaned();
 * try { return await runServe({ args, write }); } finally { unwatch(); }
 */
export function stopWhenOrphaned({
  environment = process.env,
  parentId = () => process.ppid,
  stop = (signal) => process.kill(process.pid, signal),
  signal = 'SIGTERM',
  intervalMs = 200,
}: {
  environment?: Readonly<Record<string, string | undefined>>;
  /** The current parent's pid; the default reads it from the system each time. */
  parentId?: () => number;
  stop?: (signal: NodeJS.Signals) => void;
  signal?: NodeJS.Signals;
  /** How often the parent is checked. */
  intervalMs?: number;
} = {}): () => void {
  const parent = parentId();
  // Already adopted by init when it started: there is no script's shell to outlive.
  if (environment['npm_lifecycle_event'] === undefined || parent <= 1) return () => {};
  const timer = setInterval(() => {
    if (parentId() === parent) return;
    clearInterval(timer);
    stop(signal);
  }, intervalMs);
  // Watching never keeps the process alive by itself.
  timer.unref();
  return () => clearInterval(timer);
}
