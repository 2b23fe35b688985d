/**
 * The SQL of the event log (table `run_events`, keyed by run and seq), for
 * `SqlEventLog`: each statement written with `$1`, `$2`, … in both dialects.
 *
 * @module
 */
import { sql, sqlOf } from '../sql/sql-program.js';

/**
 * Writes events, the first copy of a (run, seq) kept. PostgreSQL takes a
 * whole batch in one statement, as five arrays (run ids, seqs, types,
 * times, events as JSON); SQLite one event, its five values.
 */
export const appendEvents = sqlOf({
  sqlite: 'INSERT OR IGNORE INTO run_events (run_id, seq, type, at, event) VALUES ($1, $2, $3, $4, $5)',
  postgres: `INSERT INTO run_events (run_id, seq, type, at, event)
   SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::text[])
   ON CONFLICT (run_id, seq) DO NOTHING`,
});

/** A run's events after seq $2, at most $3. */
export const readEvents = sql('SELECT event FROM run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3');

/** A run's events of type $4 after seq $2, at most $3. */
export const readEventsOfType = sql(
  'SELECT event FROM run_events WHERE run_id = $1 AND seq > $2 AND type = $4 ORDER BY seq LIMIT $3',
);

export const lastSeq = sql('SELECT coalesce(max(seq), 0) AS seq FROM run_events WHERE run_id = $1');

/**
 * Which of the tables that hold runs still going the database has: a
 * database migrated with a custom migration list may lack them, and a
 * prune then leaves that part of its rule out (`pruneRunEventsSql`).
 */
export const retentionTables = sqlOf({
  sqlite: "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('sessions', 'server_runs')",
  postgres:
    "SELECT name FROM (VALUES ('sessions'), ('server_runs')) AS tables (name) WHERE to_regclass(name) IS NOT NULL",
});
