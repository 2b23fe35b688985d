import { SqlMemoryStore } from '../memory/sql-memory-store.js';
import { PostgresPort } from '../sql/postgres-port.js';
import type { PostgresDatabase } from './postgres-database.js';

/**
 * Long-term memory in PostgreSQL (`SqlMemoryStore` on a `PostgresPort`),
 * with the behaviour of `SqliteMemoryStore`: saves of one key serialised
 * by a transaction-scoped advisory lock (on any node), and lexical recall
 * through a GIN-indexed `tsvector` of the same scoped search terms, ranked
 * by `ts_rank`. Every query names the tenant and the user, in SQL and in
 * every term.
 *
 * @example
 * const { memory } = await openPostgresBackend({ connectionString });
 * await memory.recall({ tenantId: 'shop', userId: 'C1001', query: 'city' });
 */
export class PostgresMemoryStore extends SqlMemoryStore<'async'> {
  constructor({ database, now }: { database: PostgresDatabase; now?: () => number }) {
    super({ port: new PostgresPort(database), ...(now === undefined ? {} : { now }) });
  }
}
