import { setTimeout as sleep } from 'node:timers/promises';
import { StoreBusyError } from '../errors/store-busy-error.js';

/** The first pause after a busy try, and the longest one. */
const firstPauseMs = 5;
const longestPauseMs = 250;

/**
 * True for SQLite's "database is locked" family (`SQLITE_BUSY`,
 * `SQLITE_BUSY_SNAPSHOT`, …): another connection holds the write lock, and
 * the same write may succeed once it lets go. A `StoreBusyError` (a write
 * that already gave up waiting) counts too.
 *
 * @example
 * if (isStoreBusy(error)) return c.json({ error: { code: 'store_busy' } }, 503);
 */
export function isStoreBusy(error: unknown): boolean {
  if (StoreBusyError.isInstance(error)) return true;
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    typeof error.code === 'string' &&
    error.code.startsWith('SQLITE_BUSY')
  );
}

/**
 * Runs a synchronous SQLite write, and while it fails because the database
 * is locked, runs it again after a pause that doubles (5 ms up to 250 ms,
 * with jitter) without holding the event loop; gives up with
 * `StoreBusyError` once the next pause would end after `waitMs`. The first
 * try runs at once, on the caller's stack. Pair it with a short
 * `busy_timeout`: each try blocks the process for at most that long.
 *
 * `write` must leave nothing behind when it throws (one transaction), so a
 * try can simply be repeated. Errors other than busy ones are not retried.
 *
 * @example
 * await retryWhileBusy({ operation: 'create', waitMs: 2000, write: () => insert.run(id, now) });
 */
export function retryWhileBusy<Result>({
  write,
  operation,
  waitMs,
}: {
  write: () => Result;
  /** Named in the `StoreBusyError`. */
  operation: string;
  /** How long the write may keep trying, in all. 0: one try. */
  waitMs: number;
}): Promise<Result> {
  const startedAt = performance.now();
  // The first try without an async function around it: most writes find the database free.
  try {
    return Promise.resolve(write());
  } catch (error) {
    if (!isStoreBusy(error)) return Promise.reject(error);
    return retryAfterBusy({ write, operation, waitMs, startedAt, busy: error });
  }
}

/** The tries after a busy one (`busy`): each after a pause that doubles, until `waitMs` after `startedAt`. */
async function retryAfterBusy<Result>({
  write,
  operation,
  waitMs,
  startedAt,
  busy,
}: {
  write: () => Result;
  operation: string;
  waitMs: number;
  startedAt: number;
  busy: unknown;
}): Promise<Result> {
  let error = busy;
  for (let pause = firstPauseMs; ; pause = Math.min(longestPauseMs, pause * 2)) {
    const waited = performance.now() - startedAt;
    const next = pause / 2 + Math.random() * (pause / 2);
    if (waited + next > waitMs) throw new StoreBusyError({ operation, waitedMs: Math.round(waited), cause: error });
    await sleep(next);
    try {
      return write();
    } catch (thrown) {
      if (!isStoreBusy(thrown)) throw thrown;
      error = thrown;
    }
  }
}
