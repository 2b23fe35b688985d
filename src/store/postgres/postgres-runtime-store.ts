import { SqlRuntimeStore } from '../runtime/sql-runtime-store.js';
import { PostgresPort } from '../sql/postgres-port.js';
import type { PostgresDatabase } from './postgres-database.js';

/**
 * Finished runs in PostgreSQL (table `runs`), and the schema version the
 * backend migrated to: `SqlRuntimeStore` answered with promises. `close`
 * closes the backend's pool (when it is the backend's own).
 *
 * @example
 * const { runtime } = await openPostgresBackend({ connectionString });
 * await runtime.saveRun(record);
 */
export class PostgresRuntimeStore extends SqlRuntimeStore<'async'> {
  readonly #database: PostgresDatabase;

  constructor({ database, schemaVersion }: { database: PostgresDatabase; schemaVersion: number }) {
    super({ port: new PostgresPort(database), schemaVersion });
    this.#database = database;
  }

  override async close(): Promise<void> {
    await this.#database.close();
  }
}
