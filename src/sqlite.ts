/**
 * @module
 * `@arbiter-runtime/core/sqlite`: the embedded SQLite backend (better-sqlite3)
 * for the storage interfaces of the root entry: the runtime store (sessions,
 * runs, events in one file), the session store, the approval broker, the
 * audit log, the idempotency store and the event log, with their migrations.
 *
 * `openSqliteBackend` opens all of them on one file; the classes are for an
 * adapter that needs other settings.
 *
 * @example
 * import { openSqliteBackend } from '@arbiter-runtime/core/sqlite';
 * const { sessions, approvals, idempotency, audit, close } = openSqliteBackend({ path: '.arbiter/arbiter.db' });
 * await runSession({ model, tools, sessions, sessionId, userMessage, approvals, idempotency, audit });
 */
export {
  type ApprovalRecord,
  type ApprovalStatus,
  type AuditRecord,
  type Migration,
  migrate,
  migrations,
  openSqliteBackend,
  openSqliteStore,
  SqliteApprovalBroker,
  SqliteAuditLog,
  type SqliteBackend,
  SqliteEventLog,
  SqliteIdempotencyStore,
  SqliteMemoryStore,
  SqliteSessionStore,
  SqliteStore,
} from './store/index.js';
