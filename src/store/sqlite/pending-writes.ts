import type Database from 'better-sqlite3';
import { isStoreBusy } from '../../util/retry-while-busy.js';

/**
 * A write that may wait for the connection's next transaction. When it
 * throws (for a reason other than a locked database), the transaction it
 * ran in is rolled back and run again without it, and it is told why.
 */
export interface PendingWrite {
  readonly write: () => void;
  /** The write failed and was dropped. */
  readonly fail: (error: unknown) => void;
  /** The transaction the write ran in ended: committed, or rolled back (the write is queued again). */
  readonly settled?: (committed: boolean) => void;
  /**
   * How long the write may wait for another transaction to carry it before
   * it commits in one of its own. Default 0: when the event loop next turns.
   */
  readonly withinMs?: number;
}

/** How long a background flush that found the database locked waits before it tries again. */
const busyRetryMs = 25;

/** A queued write threw inside the transaction: which one, and what. */
class QueuedWriteFailed {
  readonly pending: PendingWrite;
  readonly error: unknown;

  constructor(pending: PendingWrite, error: unknown) {
    this.pending = pending;
    this.error = error;
  }
}

type RunQueued = (taken: readonly PendingWrite[], change: () => unknown) => unknown;

/**
 * Writes that ride along with a SQLite connection's next transaction
 * instead of committing on their own: the audit rows and recorded results
 * of calls that change nothing, and a step commit that only answers such
 * calls. Every transaction the SQLite stores open on the connection runs
 * the queue first (`transaction`), so what was queued commits, in order,
 * with the next write that must be durable; whatever is still queued when
 * the event loop next turns (while a model call is in flight), or for a
 * write that may wait longer (`withinMs`) once that time is up, commits in
 * a transaction of its own, and `flush` (a read, closing the store) commits
 * it at once.
 *
 * One queue per connection (`pendingWrites(database)`), shared by every
 * adapter on it.
 *
 * @example
 * const pending = pendingWrites(database);
 * pending.add({ write: () => insert.run(row), fail: (error) => remember(error) });
 * pending.transaction(() => commitStep.run(values)); // the row commits with the step
 */
export class PendingWrites {
  readonly #database: Database.Database;
  /** Built once: better-sqlite3's `transaction()` wraps a function, and wrapping per call costs. */
  readonly #run: Database.Transaction<RunQueued>;
  #queue: PendingWrite[] = [];
  /** When the scheduled flush runs (`performance.now()` time); undefined while none is scheduled. */
  #due: number | undefined;
  #timer: { readonly cancel: () => void } | undefined;

  constructor(database: Database.Database) {
    this.#database = database;
    this.#run = database.transaction((taken: readonly PendingWrite[], change: () => unknown) => {
      for (const pending of taken) {
        try {
          pending.write();
        } catch (error) {
          throw isStoreBusy(error) ? error : new QueuedWriteFailed(pending, error);
        }
      }
      return change();
    });
  }

  /** Writes queued and not yet committed. */
  get size(): number {
    return this.#queue.length;
  }

  /** Queues a write for the connection's next transaction (at the latest, when the event loop turns). */
  add(write: PendingWrite): void {
    this.#queue.push(write);
    this.#schedule(write.withinMs ?? 0);
  }

  /**
   * Runs `change` in a `BEGIN IMMEDIATE` transaction, after every queued
   * write. When the transaction fails (a locked database, `change` threw),
   * the queued writes it took stay queued.
   */
  transaction<Result>(change: () => Result): Result {
    let taken = this.#queue;
    if (taken.length === 0) return this.#run.immediate(taken, change) as Result;
    this.#queue = [];
    for (;;) {
      let committed = false;
      try {
        const result = this.#run.immediate(taken, change) as Result;
        committed = true;
        return result;
      } catch (error) {
        if (!(error instanceof QueuedWriteFailed)) {
          this.#queue = [...taken, ...this.#queue];
          throw error;
        }
        taken = taken.filter((pending) => pending !== error.pending);
        error.pending.fail(error.error);
      } finally {
        for (const pending of taken) pending.settled?.(committed);
      }
    }
  }

  /** Commits the queued writes now, in one transaction; nothing to do when none is queued. */
  flush(): void {
    if (this.#queue.length === 0) return;
    this.transaction(() => undefined);
  }

  /** Drops what is queued, telling each write why it will never commit. */
  discard(reason: unknown): void {
    for (const pending of this.#queue.splice(0)) pending.fail(reason);
  }

  /** Makes sure a flush runs within `delayMs`: a flush already due sooner stays, one due later is brought forward. */
  #schedule(delayMs: number): void {
    const due = performance.now() + delayMs;
    if (this.#due !== undefined && this.#due <= due) return;
    this.#timer?.cancel();
    this.#due = due;
    const run = () => {
      this.#due = undefined;
      this.#timer = undefined;
      if (!this.#database.open) {
        this.discard(new Error('the SQLite connection closed before its queued writes committed'));
        return;
      }
      try {
        this.flush();
      } catch (error) {
        if (isStoreBusy(error)) this.#schedule(busyRetryMs);
        else this.discard(error);
      }
    };
    // Not unref'd: a process that has nothing else to do still commits what is queued before it exits.
    if (delayMs === 0) {
      const immediate = setImmediate(run);
      this.#timer = { cancel: () => clearImmediate(immediate) };
    } else {
      const timeout = setTimeout(run, delayMs);
      this.#timer = { cancel: () => clearTimeout(timeout) };
    }
  }
}

const queues = new WeakMap<Database.Database, PendingWrites>();

/**
 * The connection's queue of writes waiting for its next transaction.
 *
 * @example
 * pendingWrites(store.database).flush();
 */
export function pendingWrites(database: Database.Database): PendingWrites {
  let queue = queues.get(database);
  if (queue === undefined) {
    queue = new PendingWrites(database);
    queues.set(database, queue);
  }
  return queue;
}
