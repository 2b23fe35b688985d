import pg from 'pg';
import { EngineReplayError } from '../errors/engine-replay-error.js';
import type { EngineStepRecords, RecordedEntry } from './engine-step-records.js';

/**
 * A run's record (`EngineStepRecords`) in PostgreSQL, in the table
 * `engine_step_records` of `schema` (arbiter's store's schema, or one of
 * its own), which it creates on first use: one row per entry, keyed by run
 * and position, the entry as JSON text. The first writer of a position
 * wins (`ON CONFLICT DO NOTHING`), so two attempts of one step agree on
 * what it returned.
 *
 * @example
 * const backend = await openPostgresBackend({ connectionString, schema: 'arbiter' });
 * const records = postgresEngineStepRecords({ pool: backend.pool, schema: 'arbiter' });
 */
export function postgresEngineStepRecords({
  pool,
  schema,
}: {
  pool: pg.Pool;
  /** The schema the table lives in. Default: the connection's search path. */
  schema?: string;
}): EngineStepRecords & { readonly table: string } {
  const table = `${schema === undefined ? '' : `${pg.escapeIdentifier(schema)}.`}engine_step_records`;
  let created: Promise<unknown> | undefined;
  const ready = () => {
    created ??= pool
      .query(
        `CREATE TABLE IF NOT EXISTS ${table} (
          run_id text NOT NULL, position integer NOT NULL, entry text NOT NULL, PRIMARY KEY (run_id, position))`,
      )
      .catch((error: unknown) => {
        created = undefined;
        throw error;
      });
    return created;
  };
  return {
    table,
    read: async (runId) => {
      await ready();
      const { rows } = await pool.query<{ entry: string }>(
        `SELECT entry FROM ${table} WHERE run_id = $1 ORDER BY position`,
        [runId],
      );
      return rows.map((row) => JSON.parse(row.entry) as RecordedEntry);
    },
    write: async ({ runId, position, entry }) => {
      await ready();
      const inserted = await pool.query(
        `INSERT INTO ${table} (run_id, position, entry) VALUES ($1, $2, $3) ON CONFLICT (run_id, position) DO NOTHING`,
        [runId, position, JSON.stringify(entry)],
      );
      if (inserted.rowCount === 1) return entry;
      const { rows } = await pool.query<{ entry: string }>(
        `SELECT entry FROM ${table} WHERE run_id = $1 AND position = $2`,
        [runId, position],
      );
      const recorded = rows[0];
      if (recorded === undefined)
        throw new EngineReplayError({ runId, position, recorded: 'nothing', asked: 'an entry' });
      return JSON.parse(recorded.entry) as RecordedEntry;
    },
  };
}
