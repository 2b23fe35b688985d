import type Database from 'better-sqlite3';
import { type AuditEntry, auditEntryMayWait } from '../../gate/audit-log.js';
import { retryWhileBusy } from '../../util/retry-while-busy.js';
import type { AuditChainWrite, AuditWrites } from '../audit/audit-writes.js';
import { type AuditRowValues, toAuditRowValues } from '../audit-rows.js';
import type { SqlPort } from '../sql/sql-port.js';
import { type SqlProgram, wait } from '../sql/sql-program.js';
import { SqlitePort } from '../sql/sqlite-port.js';
import { type AuditRowInsert, createAuditRowInsert } from './audit-row-insert.js';
import { type PendingWrite, type PendingWrites, pendingWrites } from './pending-writes.js';
import { createSqliteAuditChain } from './sqlite-audit-chain.js';

/**
 * How long the rows of calls that changed nothing wait for another
 * transaction before they commit in one of their own. Calls that arrive one
 * by one outside a run (the MCP server, `runToolCall` on its own) would
 * otherwise commit a transaction each: about 15-30 µs a row alone, against
 * about 6 µs a row in a batch. A crash in that window loses at most these
 * rows, of calls that changed nothing.
 */
const waitingRowsWithinMs = 20;

/**
 * How a SQLite file's audit log writes its rows (`AuditWrites` of
 * `SqlAuditStore`): every row is linked onto the file's one chain of its
 * tenant (`createSqliteAuditChain`) and inserted with as few bound values
 * as it can (`createAuditRowInsert`), in the write transaction of the
 * connection's queue (`PendingWrites`).
 *
 * The row of a call that changed nothing (`auditEntryMayWait`) waits for
 * the connection's next transaction: it commits with the step that puts
 * the call's answer into a durable session, and otherwise within 20 ms or
 * when the log is read (`beforeRead`, `flush`). Any other row commits
 * before `append` returns, together with the rows waiting before it.
 *
 * @example
 * const writes = new SqliteAuditWrites({ database });
 * const audit = new SqlAuditStore({ port: new SqlitePort(database), writes });
 */
export class SqliteAuditWrites implements AuditWrites<'sync'> {
  readonly #port: SqlPort<'sync'>;
  readonly #insert: AuditRowInsert;
  readonly #pending: PendingWrites;
  readonly #busyWaitMs: number;
  /** Rows of calls that changed nothing, waiting for the connection's next transaction, oldest first. */
  readonly #waiting: AuditRowValues[] = [];
  /** Whether a queued write will insert `#waiting`. */
  #queued = false;
  /** Waiting rows that could not be written: thrown by the next append, flush or purge. */
  #failure: unknown;
  /** The chain write a purge's transaction is handed: link and insert, on this connection, at once. */
  readonly #write: AuditChainWrite;
  /** Rows of `#waiting` the queued write took into the transaction running now. */
  #written = 0;

  /**
   * The one queued write (at most one is queued: `#queued`) that inserts
   * every row waiting when it runs, and forgets them only once they
   * committed. Made once, not per append.
   */
  readonly #writeWaiting: PendingWrite = {
    write: () => {
      this.#written = this.#waiting.length;
      this.#insert(this.#waiting);
    },
    settled: (committed) => {
      if (!committed) return;
      this.#waiting.splice(0, this.#written);
      this.#queued = false;
    },
    fail: (error) => {
      this.#waiting.length = 0;
      this.#queued = false;
      this.#failure ??= error;
    },
    withinMs: waitingRowsWithinMs,
  };

  constructor({
    database,
    port = new SqlitePort(database),
    busyWaitMs = 0,
  }: {
    database: Database.Database;
    /** The port programs run on; default one of its own on `database`. */
    port?: SqlPort<'sync'>;
    /**
     * While another connection holds the database locked, retry an append
     * asynchronously for up to this long (`retryWhileBusy`) instead of
     * failing at once. Default 0: one try, within the connection's busy timeout.
     */
    busyWaitMs?: number;
  }) {
    this.#port = port;
    const insert = createAuditRowInsert(database);
    const chain = createSqliteAuditChain(database);
    this.#insert = (rows) => insert(chain(rows));
    this.#pending = pendingWrites(database);
    this.#busyWaitMs = busyWaitMs;
    const write = this.#insert;
    this.#write = function* (rows): SqlProgram<void> {
      yield* wait(write(rows));
    };
  }

  append(entry: AuditEntry): void | Promise<void> {
    this.#throwFailure();
    const row = toAuditRowValues(entry);
    if (!auditEntryMayWait(entry)) return this.#commit(() => this.#insert([row]));
    this.#waiting.push(row);
    if (this.#queued) return;
    this.#queued = true;
    this.#pending.add(this.#writeWaiting);
  }

  /** Commits every row still waiting for a transaction. */
  flush(): void | Promise<void> {
    this.#throwFailure();
    if (this.#pending.size === 0) return;
    return this.#commit(() => undefined);
  }

  beforeRead(): void {
    this.#pending.flush();
  }

  /** Runs `program` in a `BEGIN IMMEDIATE` transaction of the connection's queue, after the rows waiting for one. */
  inTransaction<Result>(_tenant: string, program: (write: AuditChainWrite) => SqlProgram<Result>): Result {
    this.#throwFailure();
    return this.#pending.transaction(() => this.#port.run(program(this.#write)));
  }

  #commit(write: () => void): void | Promise<void> {
    const inTransaction = () => this.#pending.transaction(write);
    if (this.#busyWaitMs === 0) return inTransaction();
    return retryWhileBusy({ operation: 'audit', waitMs: this.#busyWaitMs, write: inTransaction });
  }

  #throwFailure(): void {
    if (this.#failure === undefined) return;
    const failure = this.#failure;
    this.#failure = undefined;
    throw failure;
  }
}
