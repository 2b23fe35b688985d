import type pg from 'pg';
import { type Backend, type BackendSettings, conceptOptions } from '../backend.js';
import type { Migration } from '../sqlite/migrations/migration.js';
import { migratePostgres } from './migrate-postgres.js';
import { postgresMigrations } from './migrations/index.js';
import { PostgresApprovalBroker } from './postgres-approval-broker.js';
import { PostgresAuditLog } from './postgres-audit-log.js';
import { PostgresDatabase } from './postgres-database.js';
import { PostgresEventLog } from './postgres-event-log.js';
import { PostgresIdempotencyStore } from './postgres-idempotency-store.js';
import { PostgresMemoryStore } from './postgres-memory-store.js';
import { PostgresRuntimeStore } from './postgres-runtime-store.js';
import { PostgresServerRuns } from './postgres-server-runs.js';
import { PostgresSessionStore } from './postgres-session-store.js';

/**
 * Every storage interface arbiter has, on one PostgreSQL pool: a `Backend`
 * (as `SqliteBackend` is), with each concept's class on the PostgreSQL port.
 *
 * @example
 * const { sessions, approvals, close } = await openPostgresBackend({ connectionString: 'postgres://localhost/arbiter' });
 */
export interface PostgresBackend extends Backend {
  /** Sessions and their run journals (`SessionStore`). */
  readonly sessions: PostgresSessionStore;
  /** Approvals any node can decide and resume (`ApprovalBroker`). */
  readonly approvals: PostgresApprovalBroker;
  /** Idempotency claims scoped by tenant and principal (`IdempotencyStore`). */
  readonly idempotency: PostgresIdempotencyStore;
  /** The append-only audit log, also the call history rules read (`AuditLog`, `CallHistorySource`). */
  readonly audit: PostgresAuditLog;
  /** The runs' external events, for replay (`EventLog`). */
  readonly events: PostgresEventLog;
  /** Finished runs and the schema version (`RuntimeStore`). */
  readonly runtime: PostgresRuntimeStore;
  /** Long-term memory: facts per tenant and user (`MemoryStore`). */
  readonly memory: PostgresMemoryStore;
  /** The server's runs and their leases, shared by every `arbiter serve` node on the database. */
  readonly serverRuns: PostgresServerRuns;
  /** The pool every member uses, for tables outside these interfaces. */
  readonly pool: pg.Pool;
  /** The schema the tables live in; undefined: the pool's `search_path`. */
  readonly schema: string | undefined;
  /** Ends the backend's own pool (not an application's); every member above stops working. */
  close(): Promise<void>;
}

/**
 * Opens the PostgreSQL backend: migrates the schema to the latest version
 * (each migration once, in its own transaction, with concurrent openers
 * taking turns on an advisory lock), then builds every adapter on one
 * `pg.Pool` with its default settings.
 *
 * With `connectionString` the backend opens its own pool and `close` ends
 * it; with `pool` it uses the application's and leaves it open. With
 * `schema` (a plain lower-case name, created when missing) every connection
 * the backend uses has its `search_path` set to it, so several backends,
 * or tests run in parallel, can share one database.
 *
 * @example
 * const backend = await openPostgresBackend({ connectionString: process.env.ARBITER_STORE_URL, schema: 'arbiter' });
 * await runSession({ sessions: backend.sessions, approvals: backend.approvals, audit: backend.audit, ...rest });
 * await backend.close();
 */
export async function openPostgresBackend({
  connectionString,
  pool,
  schema,
  poolSize,
  connectWaitMs,
  connectTimeoutMs,
  migrations = postgresMigrations,
  auditKey,
  ...settings
}: BackendSettings & {
  /** `postgres://user:password@host:port/database`; the backend opens its own pool. */
  connectionString?: string;
  /** An application's pool, used instead of a pool of the backend's own. */
  pool?: pg.Pool;
  /** The schema the tables live in. Default: the connections' own `search_path` (usually `public`). */
  schema?: string;
  /** Connections of the backend's own pool. Default 10. */
  poolSize?: number;
  /** How long a checkout keeps trying while the database refuses connections. Default 30 s; 0: one try. */
  connectWaitMs?: number;
  /** How long one connection attempt of the backend's own pool may take. Default: no limit. */
  connectTimeoutMs?: number;
  /** Default: every migration the PostgreSQL backend has. */
  migrations?: readonly Migration[];
  /** The key audit purge checkpoints are signed with; default `ARBITER_AUDIT_KEY`. */
  auditKey?: string;
}): Promise<PostgresBackend> {
  const database = PostgresDatabase.open({
    ...(connectionString === undefined ? {} : { connectionString }),
    ...(pool === undefined ? {} : { pool }),
    ...(schema === undefined ? {} : { schema }),
    ...(poolSize === undefined ? {} : { poolSize }),
    ...(connectWaitMs === undefined ? {} : { connectWaitMs }),
    ...(connectTimeoutMs === undefined ? {} : { connectTimeoutMs }),
  });
  let schemaVersion: number;
  try {
    schemaVersion = await migratePostgres({ database, migrations });
  } catch (error) {
    await database.close();
    throw error;
  }
  const options = conceptOptions(settings);
  const { clock } = options;
  const runtime = new PostgresRuntimeStore({ database, schemaVersion });
  return {
    sessions: new PostgresSessionStore({ database, ...clock }),
    approvals: new PostgresApprovalBroker({ database, ...options.approvals }),
    idempotency: new PostgresIdempotencyStore({ database, ...options.idempotency }),
    audit: new PostgresAuditLog({ database, ...options.audit, ...(auditKey === undefined ? {} : { auditKey }) }),
    events: new PostgresEventLog({ database }),
    runtime,
    memory: new PostgresMemoryStore({ database, ...clock }),
    serverRuns: new PostgresServerRuns({ database, ...clock }),
    pool: database.pool,
    schema: database.schema,
    close: () => database.close(),
  };
}
