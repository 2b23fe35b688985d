import { SqlAuditStore, type SqlAuditStoreOptions } from '../audit/sql-audit-store.js';
import { PostgresPort } from '../sql/postgres-port.js';
import { postgresAuditWrites } from './postgres-chain-writer.js';
import type { PostgresDatabase } from './postgres-database.js';

/**
 * The append-only audit log in PostgreSQL (`SqlAuditStore` on a
 * `PostgresPort`), with the same columns and indexes as SQLite's (see
 * `SqliteAuditLog`); every method answers with a promise. Each node writes
 * chains of its own (`PostgresChainWriter`): an append takes no lock and
 * reads nothing, so appends of one tenant on different nodes never wait for
 * each other. A trigger refuses UPDATE, DELETE and TRUNCATE but for a purge
 * (migration 13 explains it).
 *
 * @example
 * const { audit } = await openPostgresBackend({ connectionString });
 * await runAgent({ model, tools, messages, audit });
 * (await audit.listAudit({ sessionId })).map((entry) => entry.decision);
 */
export class PostgresAuditLog extends SqlAuditStore<'async'> {
  constructor({ database, ...options }: SqlAuditStoreOptions & { database: PostgresDatabase }) {
    const port = new PostgresPort(database);
    super({ ...options, port, writes: postgresAuditWrites({ database, port }) });
  }
}
