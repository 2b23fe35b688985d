/**
 * @module
 * `@arbiter-runtime/core/postgres`: the PostgreSQL backend (node-postgres,
 * `pg`) for the storage interfaces of the root entry: sessions with their
 * run journals, the approval broker, the idempotency store, the
 * append-only audit log, the event log and the runtime store, with their
 * migrations. Several processes or nodes can share one database.
 *
 * `openPostgresBackend` migrates the schema and opens all of them on one
 * pool; the classes are for an adapter that needs other settings. The root
 * entry never imports `pg`: only this one does.
 *
 * @example
 * import { openPostgresBackend } from '@arbiter-runtime/core/postgres';
 * const { sessions, approvals, idempotency, audit, close } = await openPostgresBackend({
 *   connectionString: 'postgres://arbiter@localhost/arbiter',
 *   schema: 'arbiter',
 * });
 * await runSession({ model, tools, sessions, sessionId, userMessage, approvals, idempotency, audit });
 * await close();
 */
export {
  migratePostgres,
  openPostgresBackend,
  PostgresApprovalBroker,
  PostgresAuditLog,
  type PostgresBackend,
  PostgresDatabase,
  PostgresEventLog,
  PostgresIdempotencyStore,
  PostgresMemoryStore,
  PostgresRuntimeStore,
  PostgresSessionStore,
  postgresMigrations,
} from './store/postgres/index.js';
