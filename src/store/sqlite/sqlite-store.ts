import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { SqlRuntimeStore } from '../runtime/sql-runtime-store.js';
import { SqlitePort } from '../sql/sqlite-port.js';
import { migrations as defaultMigrations, type Migration } from './migrations/index.js';
import { pendingWrites } from './pending-writes.js';
import { preparedStatements } from './prepared-statements.js';
import { WalCheckpointer, type WalCheckpointOptions } from './wal-checkpointer.js';

type Sqlite = Database.Database;

/** How long opening and migrating waits for another connection's lock, whatever `busyTimeoutMs` says. */
const openingBusyTimeoutMs = 5000;

/**
 * The embedded store: one SQLite file in WAL mode with
 * `synchronous = NORMAL`, migrated to the latest schema when opened.
 *
 * `busyTimeoutMs` is how long one statement waits for a lock another
 * connection holds. better-sqlite3 is synchronous, so that wait holds the
 * whole process: a server passes a short one (tens of milliseconds) and
 * retries busy writes asynchronously (`retryWhileBusy`). Opening and
 * migrating always wait up to 5 s.
 *
 * The WAL of a file is copied back into it by a thread of the store's own
 * (`WalCheckpointer`, from a second after opening), so a commit never waits
 * for a checkpoint's `fsync`s; `checkpoints: 'inline'` keeps SQLite's
 * default, where the commit that fills the WAL past 1,000 pages does it.
 *
 * @example
 * const store = openSqliteStore({ path: '.arbiter/arbiter.db', busyTimeoutMs: 25 });
 */
export function openSqliteStore({
  path,
  migrations = defaultMigrations,
  busyTimeoutMs = 5000,
  checkpoints = {},
}: {
  path: string;
  migrations?: readonly Migration[];
  /** Default 5000. */
  busyTimeoutMs?: number;
  /**
   * Where the WAL is copied back into the database file: on a thread of
   * its own (default, for a file; see `WalCheckpointer`), or `'inline'` by
   * the connection that commits, as SQLite does by default.
   */
  checkpoints?: WalCheckpointOptions | 'inline';
}): SqliteStore {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new Database(path);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  database.pragma(`busy_timeout = ${openingBusyTimeoutMs}`);
  const schemaVersion = migrate(database, migrations);
  database.pragma(`busy_timeout = ${Math.max(0, Math.round(busyTimeoutMs))}`);
  const checkpointer =
    path === ':memory:' || path === '' || checkpoints === 'inline'
      ? undefined
      : new WalCheckpointer({ database, path, options: checkpoints });
  return new SqliteStore(database, schemaVersion, checkpointer);
}

/**
 * Applies every migration the database has not recorded yet, in version
 * order, each in its own transaction; returns the highest version applied.
 */
export function migrate(database: Sqlite, migrations: readonly Migration[]): number {
  database.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
  );
  const statement = preparedStatements(database);
  const applied = new Set(
    (statement('SELECT version FROM schema_migrations').all() as { version: number }[]).map((row) => row.version),
  );
  const record = statement('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  for (const migration of [...migrations].sort((left, right) => left.version - right.version)) {
    if (applied.has(migration.version)) continue;
    database.transaction(() => {
      database.exec(migration.sql);
      record.run(migration.version, migration.name, Date.now());
    })();
    applied.add(migration.version);
  }
  return Math.max(0, ...applied);
}

/**
 * The embedded store's connection, and its finished runs (`SqlRuntimeStore`,
 * answered at once); the areas that add their own tables (sessions,
 * approvals, …) open their stores on `database`.
 *
 * @example
 * const store = openSqliteStore({ path: ':memory:' });
 * store.saveRun(record);
 * store.listRuns({ sessionId }); // newest first
 */
export class SqliteStore extends SqlRuntimeStore<'sync'> {
  /** The underlying connection, for the areas that add their own tables. */
  readonly database: Sqlite;
  /** The thread that checkpoints the file's WAL, when the store has one (see `WalCheckpointer`). */
  readonly checkpointer: WalCheckpointer | undefined;

  constructor(database: Sqlite, schemaVersion: number, checkpointer?: WalCheckpointer) {
    super({ port: new SqlitePort(database), schemaVersion });
    this.database = database;
    this.checkpointer = checkpointer;
  }

  /** Commits the writes still waiting for a transaction (`PendingWrites`), stops the checkpoint thread, then closes the connection. */
  override close(): void {
    if (!this.database.open) return;
    try {
      pendingWrites(this.database).flush();
    } finally {
      this.checkpointer?.close();
      this.database.close();
    }
  }
}
