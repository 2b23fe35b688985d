import type { SqlMode, SqlPort } from '../sql/sql-port.js';
import { type SqlProgram, transaction } from '../sql/sql-program.js';

/** One write of `SqlSessionStore`: a program of statements run in one transaction. */
export interface SessionWrite<Result> {
  /** What the write is, named in the error of a write that gave up waiting for a lock. */
  readonly operation: string;
  /**
   * The write's statements. It may be run again from the start (a lost
   * connection, a locked database), so it does nothing but its statements
   * and what it returns.
   */
  readonly work: () => SqlProgram<Result>;
  /**
   * A write of a run in progress (its journal, `endRun`): nobody can repeat
   * it later, so it may wait longer for a lock than a write a caller waits on.
   */
  readonly ofRun: boolean;
  /**
   * The work is one statement, atomic by itself: a dialect that needs no
   * transaction for it (PostgreSQL) sends it alone, one round trip.
   */
  readonly oneStatement?: boolean;
}

/**
 * A write that may wait for the connection's next transaction instead of
 * committing on its own (see `SessionTransactions.deferred`). Its methods
 * are called on it (`write.work()`), so one object of a class can be the
 * whole write, with no closure or generator function made per write: a
 * generator function made per call gives each of its generators a hidden
 * class of its own, allocated in V8's old space, which keeps everything the
 * generator referenced alive through every young-generation collection
 * until the next full one (issue 48: 0.5 MB promoted per scavenge, twice
 * the collector's time).
 */
export interface DeferredSessionWrite<Result = unknown> {
  /**
   * Its statements, run inside whichever transaction takes it, or undefined
   * when it has nothing left to write (a later write took it over).
   */
  work(): SqlProgram<Result> | undefined;
  /** What its statements answered, inside the transaction, before it commits. */
  wrote(result: Result): void;
  /** It threw, and was dropped. */
  fail(error: unknown): void;
  /** The transaction it ran in ended: committed, or rolled back (it is queued again). */
  settled(committed: boolean): void;
}

/**
 * How `SqlSessionStore` runs its writes on a dialect: every write in one
 * transaction, and what a read must do first. The default
 * (`portTransactions`) is the port's own `transaction`; SQLite hands in its
 * connection's queue of deferred writes and its retries while another
 * connection holds the lock (`SqliteSessionStore`).
 *
 * @example
 * const transactions: SessionTransactions = {
 *   write: async ({ work }) => port.run(transaction(work)),
 *   beforeRead: () => {},
 * };
 */
export interface SessionTransactions {
  /** Runs `write.work` in one transaction; its result once committed. */
  write<Result>(write: SessionWrite<Result>): Promise<Result>;
  /**
   * `write`, answered without a promise where the dialect commits at once
   * (SQLite, while no other connection holds the lock; a promise only while
   * it waits one out): a journal's step commit then gives the loop nothing
   * to await. A write that fails at once throws.
   */
  readonly writeAtOnce?: <Result>(write: SessionWrite<Result>) => Result | Promise<Result>;
  /** Makes what waits for a transaction (`deferred`) visible to the read that follows. */
  beforeRead(): void;
  /**
   * Queues writes for the connection's next transaction, where the dialect
   * has such a queue (SQLite's pending writes): a journal holds a step
   * commit that only answers calls it may run again there. Without it,
   * every commit is written at once.
   */
  readonly deferred?: { add<Result>(write: DeferredSessionWrite<Result>): void };
}

/**
 * Writes as the port runs a `transaction`, nothing deferred: PostgreSQL's
 * (whose port starts a transaction again after a connection lost before
 * its `COMMIT`).
 *
 * @example
 * new SqlSessionStore({ port, transactions: portTransactions(port) });
 */
export function portTransactions(port: SqlPort<SqlMode>): SessionTransactions {
  return {
    write: async ({ work, oneStatement = false }) => port.run(oneStatement ? work() : transaction(work)),
    beforeRead: () => {},
  };
}
