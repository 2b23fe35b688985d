import pg from 'pg';
import type { Migration } from '../sqlite/migrations/migration.js';
import type { PostgresDatabase } from './postgres-database.js';

/** The first half of the advisory lock key every arbiter migration takes; the second is the schema's. */
const lockNamespace = 'arbiter.schema_migrations';

/**
 * Applies every migration the schema has not recorded yet, in version
 * order, each in its own transaction, recorded in `schema_migrations`;
 * returns the highest version the schema has. Creates the schema first when
 * the database has one. Openers that migrate at the same time (several
 * nodes starting together) take turns on a session-level advisory lock
 * keyed by the schema, so each migration is applied exactly once; other
 * schemas migrate in parallel.
 *
 * @example
 * const schemaVersion = await migratePostgres({ database, migrations: postgresMigrations });
 */
export async function migratePostgres({
  database,
  migrations,
}: {
  database: PostgresDatabase;
  migrations: readonly Migration[];
}): Promise<number> {
  return database.withConnection(async (query) => {
    const keyed = await query<{ key: number }>("SELECT hashtext(coalesce($1::text, current_schema(), '')) AS key", [
      database.schema ?? null,
    ]);
    const lock = [lockNamespace, keyed.rows[0]?.key ?? 0];
    await query('SELECT pg_advisory_lock(hashtext($1), $2)', lock);
    try {
      if (database.schema !== undefined)
        await query(`CREATE SCHEMA IF NOT EXISTS ${pg.escapeIdentifier(database.schema)}`);
      await query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)',
      );
      const applied = new Set(
        (await query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((row) => row.version),
      );
      for (const migration of [...migrations].sort((left, right) => left.version - right.version)) {
        if (applied.has(migration.version)) continue;
        await query('BEGIN');
        try {
          await query(migration.sql);
          await query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
            migration.version,
            migration.name,
            Date.now(),
          ]);
          await query('COMMIT');
        } catch (error) {
          await query('ROLLBACK');
          throw error;
        }
        applied.add(migration.version);
      }
      return Math.max(0, ...applied);
    } finally {
      await query('SELECT pg_advisory_unlock(hashtext($1), $2)', lock);
    }
  });
}
