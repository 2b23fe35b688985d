import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { type RunRecord, type RunRow, type RuntimeStore, toRunRecord } from '../runtime-store.js';
import { migrations as defaultMigrations, type Migration } from './migrations/index.js';
import { pendingWrites } from './pending-writes.js';
import { type PreparedStatements, preparedStatements } from './prepared-statements.js';
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

export class SqliteStore implements RuntimeStore {
  readonly schemaVersion: number;
  /** The underlying connection, for the areas that add their own tables. */
  readonly database: Sqlite;
  /** The thread that checkpoints the file's WAL, when the store has one (see `WalCheckpointer`). */
  readonly checkpointer: WalCheckpointer | undefined;
  readonly #statement: PreparedStatements;

  constructor(database: Sqlite, schemaVersion: number, checkpointer?: WalCheckpointer) {
    this.database = database;
    this.schemaVersion = schemaVersion;
    this.checkpointer = checkpointer;
    this.#statement = preparedStatements(database);
  }

  saveRun(record: RunRecord): void {
    this.#statement(
      `INSERT OR REPLACE INTO runs (run_id, session_id, model, started_at, ended_at, stop_reason, steps, input_tokens, output_tokens, error_code)
       VALUES (@runId, @sessionId, @model, @startedAt, @endedAt, @stopReason, @steps, @inputTokens, @outputTokens, @errorCode)`,
    ).run({ ...record, sessionId: record.sessionId ?? null, errorCode: record.errorCode ?? null });
  }

  listRuns({ sessionId, limit = 100 }: { sessionId?: string; limit?: number } = {}): readonly RunRecord[] {
    const rows = (
      sessionId === undefined
        ? this.#statement('SELECT * FROM runs ORDER BY started_at DESC LIMIT ?').all(limit)
        : this.#statement('SELECT * FROM runs WHERE session_id = ? ORDER BY started_at DESC LIMIT ?').all(
            sessionId,
            limit,
          )
    ) as RunRow[];
    return rows.map(toRunRecord);
  }

  /** Commits the writes still waiting for a transaction (`PendingWrites`), stops the checkpoint thread, then closes the connection. */
  close(): void {
    if (!this.database.open) return;
    try {
      pendingWrites(this.database).flush();
    } finally {
      this.checkpointer?.close();
      this.database.close();
    }
  }
}
