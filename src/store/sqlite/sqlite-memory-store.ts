import type Database from 'better-sqlite3';
import { SqlMemoryStore } from '../memory/sql-memory-store.js';
import { SqlitePort } from '../sql/sqlite-port.js';

/**
 * Long-term memory in SQLite (`SqlMemoryStore` on a `SqlitePort`, every
 * method answering synchronously): every version of a fact is a row; the
 * current one per (tenant, user, key) is unique by a partial index;
 * lexical recall is FTS5 over each fact's search terms, prefixed with the
 * owner's scope (see `scopedSearchTerms`), ranked by BM25, and every query
 * names the tenant and the user, in SQL and in every term.
 *
 * @example
 * const memory = new SqliteMemoryStore({ database: backend.database });
 * await memory.save({ tenantId: 'shop', userId: 'C1001', key: 'city', value: '上海', source: { kind: 'user' }, trusted: true });
 */
export class SqliteMemoryStore extends SqlMemoryStore<'sync'> {
  constructor({ database, now }: { database: Database.Database; now?: () => number }) {
    super({ port: new SqlitePort(database), ...(now === undefined ? {} : { now }) });
  }
}
