import { readdirSync, readFileSync } from 'node:fs';

/** What the Linux scheduler recorded for a process, in nanoseconds since it started. */
export interface ThreadSchedule {
  /** Time on a CPU, every thread of the process together. */
  readonly runNanoseconds: number;
  /** Time the main thread was ready to run but waited for a CPU (another process, or another thread, had it). */
  readonly mainWaitNanoseconds: number;
}

/**
 * Reads `/proc/<pid>/task/<tid>/schedstat` (on a CPU, waiting on a run
 * queue, in nanoseconds) for every thread of `pid`. Undefined where the
 * kernel does not keep them (not Linux, or no schedstats), or the process
 * is gone. Reading costs tens of microseconds: never inside a timing.
 *
 * @example
 * const before = readThreadSchedule(serverPid);
 * // … calls …
 * const serverCpu = (readThreadSchedule(serverPid)?.runNanoseconds ?? 0) - (before?.runNanoseconds ?? 0);
 */
export function readThreadSchedule(pid: number): ThreadSchedule | undefined {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  let runNanoseconds = 0;
  let mainWaitNanoseconds: number | undefined;
  for (const thread of threads) {
    let fields: number[];
    try {
      fields = readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ').map(Number);
    } catch {
      // A thread that ended after the listing.
      continue;
    }
    runNanoseconds += fields[0] ?? Number.NaN;
    if (thread === String(pid)) mainWaitNanoseconds = fields[1];
  }
  if (mainWaitNanoseconds === undefined || Number.isNaN(runNanoseconds + mainWaitNanoseconds)) return undefined;
  return { runNanoseconds, mainWaitNanoseconds };
}
