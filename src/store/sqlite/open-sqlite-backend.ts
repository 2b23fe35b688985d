import type Database from 'better-sqlite3';
import { type Backend, type BackendSettings, conceptOptions } from '../backend.js';
import type { Migration } from './migrations/index.js';
import { SqliteApprovalBroker } from './sqlite-approval-broker.js';
import { SqliteAuditLog } from './sqlite-audit-log.js';
import { SqliteEventLog } from './sqlite-event-log.js';
import { SqliteIdempotencyStore } from './sqlite-idempotency-store.js';
import { SqliteMemoryStore } from './sqlite-memory-store.js';
import { SqliteSessionStore } from './sqlite-session-store.js';
import { openSqliteStore, type SqliteStore } from './sqlite-store.js';

/**
 * Every storage interface arbiter has, on one SQLite connection.
 *
 * @example
 * const { sessions, approvals, close } = openSqliteBackend({ path: ':memory:' });
 */
export interface SqliteBackend extends Backend {
  /** Sessions and their run journals (`SessionStore`). */
  readonly sessions: SqliteSessionStore;
  /** Approvals that survive a restart (`ApprovalBroker`). */
  readonly approvals: SqliteApprovalBroker;
  /** Idempotency claims scoped by tenant and principal (`IdempotencyStore`). */
  readonly idempotency: SqliteIdempotencyStore;
  /** The append-only audit log, also the call history rules read (`AuditLog`, `CallHistorySource`). */
  readonly audit: SqliteAuditLog;
  /** The runs' external events, for replay (`EventLog`). */
  readonly events: SqliteEventLog;
  /** Finished runs and the schema version (`RuntimeStore`). */
  readonly runtime: SqliteStore;
  /** Long-term memory: facts per tenant and user (`MemoryStore`). */
  readonly memory: SqliteMemoryStore;
  /** The connection, for tables outside these interfaces (the server's runs). */
  readonly database: Database.Database;
  /** Closes the connection; every member above stops working. */
  close(): void;
}

/**
 * Opens the embedded backend: one SQLite file (WAL, migrated to the latest
 * schema, see `openSqliteStore`) and every adapter on its connection, with
 * their default settings. Build an adapter yourself on `database` when it
 * needs other settings (a server's short busy waits).
 *
 * @example
 * const backend = openSqliteBackend({ path: '.arbiter/arbiter.db' });
 * await runSession({ sessions: backend.sessions, approvals: backend.approvals, audit: backend.audit, ...rest });
 * backend.close();
 */
export function openSqliteBackend({
  path,
  migrations,
  busyTimeoutMs,
  historyLeaseMs,
  ...settings
}: BackendSettings & {
  /** A file, or `:memory:`. */
  path: string;
  /** Default: every migration arbiter has. */
  migrations?: readonly Migration[];
  /** How long one statement waits for another connection's lock (see `openSqliteStore`). Default 5000. */
  busyTimeoutMs?: number;
  /** How long a killed process's history reservation holds others back (see `SqliteAuditLog`). Default 30 s. */
  historyLeaseMs?: number;
}): SqliteBackend {
  const runtime = openSqliteStore({
    path,
    ...(migrations === undefined ? {} : { migrations }),
    ...(busyTimeoutMs === undefined ? {} : { busyTimeoutMs }),
  });
  const { database } = runtime;
  const options = conceptOptions(settings);
  const { clock } = options;
  return {
    sessions: new SqliteSessionStore({ database, ...clock }),
    approvals: new SqliteApprovalBroker({ database, ...options.approvals }),
    idempotency: new SqliteIdempotencyStore({ database, ...options.idempotency }),
    audit: new SqliteAuditLog({
      database,
      ...options.audit,
      ...(historyLeaseMs === undefined ? {} : { historyLeaseMs }),
    }),
    events: new SqliteEventLog({ database }),
    runtime,
    memory: new SqliteMemoryStore({ database, ...clock }),
    database,
    close: () => runtime.close(),
  };
}
