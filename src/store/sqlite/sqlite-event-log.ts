import type Database from 'better-sqlite3';
import type { SynchronousEventLog } from '../../events/event-log.js';
import { SqlEventLog } from '../events/sql-event-log.js';
import { SqlitePort } from '../sql/sqlite-port.js';

/**
 * The event log in the runtime store's SQLite database (table `run_events`,
 * migration 30): `SqlEventLog` answered at once. Pass `store.database` from
 * `openSqliteStore`.
 *
 * @example
 * const store = openSqliteStore({ path: ':memory:' });
 * const log = new SqliteEventLog({ database: store.database });
 */
export class SqliteEventLog extends SqlEventLog<'sync'> implements SynchronousEventLog {
  constructor({ database }: { database: Database.Database }) {
    super({ port: new SqlitePort(database) });
  }
}
