import type Database from 'better-sqlite3';
import { SqlAuditStore, type SqlAuditStoreOptions } from '../audit/sql-audit-store.js';
import { SqlitePort } from '../sql/sqlite-port.js';
import { SqliteAuditWrites } from './sqlite-audit-writes.js';

export type { AuditRecord } from '../audit-rows.js';

/**
 * The append-only audit log in SQLite (`SqlAuditStore` on a `SqlitePort`):
 * every method answers synchronously, but for an append that waits out
 * another connection's lock (`busyWaitMs`) and `reserveHistory`. The file
 * is one writer of the hash chains, so every connection and process on it
 * extends the same chain of each tenant (`createSqliteAuditChain`).
 *
 * The row of a call that changes nothing (a `read` let through) waits for
 * the connection's next transaction (`SqliteAuditWrites`): it commits with
 * the step that puts the call's answer into a durable session, and
 * otherwise within 20 ms or when the log is read (`findCalls`,
 * `listAudit`, `verifyChain`, `flush`). Any other row commits before
 * `append` returns, together with the rows waiting before it. Triggers
 * refuse UPDATE and DELETE but for a purge (migration 16 explains them).
 *
 * @example
 * const audit = new SqliteAuditLog({ database: store.database });
 * await runAgent({ model, tools, messages, audit });
 * audit.listAudit({ sessionId }).map((entry) => entry.decision);
 */
export class SqliteAuditLog extends SqlAuditStore<'sync'> {
  readonly #writes: SqliteAuditWrites;

  constructor({
    database,
    busyWaitMs = 0,
    ...options
  }: SqlAuditStoreOptions & {
    database: Database.Database;
    /**
     * While another connection holds the database locked, retry an append
     * asynchronously for up to this long (`retryWhileBusy`) instead of
     * failing at once. Default 0: one try, within the connection's busy timeout.
     */
    busyWaitMs?: number;
  }) {
    const port = new SqlitePort(database);
    const writes = new SqliteAuditWrites({ database, port, busyWaitMs });
    super({ ...options, port, writes });
    this.#writes = writes;
  }

  /** Commits every row still waiting for a transaction. */
  flush(): void | Promise<void> {
    return this.#writes.flush();
  }
}
