import type Database from 'better-sqlite3';
import { isStoreBusy, retryWhileBusy } from '../../util/retry-while-busy.js';
import type { DeferredSessionWrite, SessionTransactions } from '../sessions/session-transactions.js';
import { SqlSessionStore } from '../sessions/sql-session-store.js';
import { SqlitePort } from '../sql/sqlite-port.js';
import { type PendingWrite, pendingWrites } from './pending-writes.js';

/**
 * Sessions in arbiter's SQLite store: `SqlSessionStore` on a better-sqlite3
 * connection, answering synchronously under its promises (the journal's
 * `findToolResult` without one). Writes run in `BEGIN IMMEDIATE`
 * transactions and check the version inside them, so several processes can
 * share one file (WAL) without losing, duplicating or reordering a message.
 *
 * Each write's transaction first commits the writes waiting on the
 * connection (`pendingWrites`: audit rows of reads, a journal's rerunnable
 * step commit), and a read commits them before it reads. A write that finds
 * the database locked by another connection (after the connection's own
 * `busy_timeout`) is tried again asynchronously (`retryWhileBusy`): for up
 * to `busyWaitMs` for writes a caller waits on (create, append, slots, fork,
 * purge, beginRun), then `StoreBusyError`; for up to `runBusyWaitMs` for
 * the writes of a run in progress (its journal and `endRun`), which nobody
 * can repeat later.
 *
 * @example
 * const store = openSqliteStore({ path: '.arbiter/arbiter.db' });
 * const sessions = new SqliteSessionStore({ database: store.database });
 */
export class SqliteSessionStore extends SqlSessionStore<'sync'> {
  constructor({
    database,
    now,
    busyWaitMs = 2000,
    runBusyWaitMs = 60_000,
  }: {
    database: Database.Database;
    now?: () => number;
    /** How long a write a caller waits on keeps retrying while the database is locked. Default 2000. */
    busyWaitMs?: number;
    /** The same for a run's journal and `endRun`. Default 60 000. */
    runBusyWaitMs?: number;
  }) {
    const port = new SqlitePort(database);
    super({ port, now, transactions: sqliteTransactions({ port, busyWaitMs, runBusyWaitMs }) });
  }

  /**
   * How many writes found their session moved on and retried: none, since
   * a write without `expectedVersion` applies to the session as its
   * transaction reads it (the transaction keeps every other writer out)
   * instead of checking a version read before it.
   *
   * @deprecated Always 0; kept so that code reading it still compiles.
   */
  get conflictRetries(): number {
    return 0;
  }
}

/** SQLite's writes: after the connection's waiting writes, in their transaction, retried while the file is locked. */
function sqliteTransactions({
  port,
  busyWaitMs,
  runBusyWaitMs,
}: {
  port: SqlitePort;
  busyWaitMs: number;
  runBusyWaitMs: number;
}): SessionTransactions {
  const pending = pendingWrites(port.database);
  return {
    write: ({ operation, work, ofRun }) =>
      retryWhileBusy({
        operation,
        waitMs: ofRun ? runBusyWaitMs : busyWaitMs,
        write: () => pending.transaction(() => port.run(work())),
      }),
    writeAtOnce: ({ operation, work, ofRun }) => {
      const write = () => pending.transaction(() => port.run(work()));
      try {
        return write();
      } catch (error) {
        if (!isStoreBusy(error)) throw error;
        // Locked by another connection: waited out as `write` does, its first try the one that just failed.
        let tried = false;
        return retryWhileBusy({
          operation,
          waitMs: ofRun ? runBusyWaitMs : busyWaitMs,
          write: () => {
            if (tried) return write();
            tried = true;
            throw error;
          },
        });
      }
    },
    beforeRead: () => pending.flush(),
    deferred: {
      add: (write) => pending.add(new DeferredProgram(port, write)),
    },
  };
}

/** A deferred session write as the connection's queue runs it: its program on this port, one object per write. */
class DeferredProgram<Result> implements PendingWrite {
  readonly #port: SqlitePort;
  readonly #write: DeferredSessionWrite<Result>;

  constructor(port: SqlitePort, write: DeferredSessionWrite<Result>) {
    this.#port = port;
    this.#write = write;
  }

  write(): void {
    const program = this.#write.work();
    if (program !== undefined) this.#write.wrote(this.#port.run(program));
  }

  fail(error: unknown): void {
    this.#write.fail(error);
  }

  settled(committed: boolean): void {
    this.#write.settled(committed);
  }
}
