/**
 * @module
 * `@arbiter-runtime/core/sqlite`: the embedded SQLite backend (better-sqlite3)
 * for the storage interfaces of the root entry: the runtime store (sessions,
 * runs, events in one file), the session store, the approval broker, the
 * audit log, the idempotency store and the event log, with their migrations.
 *
 * @example
 * import { openSqliteStore, SqliteApprovalBroker, SqliteSessionStore } from '@arbiter-runtime/core/sqlite';
 * const store = openSqliteStore({ path: '.arbiter/arbiter.db' });
 * const sessions = new SqliteSessionStore({ database: store.database });
 * const approvals = new SqliteApprovalBroker({ database: store.database });
 */
export {
  type ApprovalRecord,
  type ApprovalStatus,
  type AuditRecord,
  type Migration,
  migrate,
  migrations,
  openSqliteStore,
  SqliteApprovalBroker,
  SqliteAuditLog,
  SqliteEventLog,
  SqliteIdempotencyStore,
  SqliteSessionStore,
  SqliteStore,
} from './store/index.js';
