/**
 * The SQL of finished runs (table `runs`), for `SqlRuntimeStore`: each
 * statement written with `$1`, `$2`, … in both dialects.
 *
 * @module
 */
import { sql, sqlOf } from '../sql/sql-program.js';

const columns =
  'run_id, session_id, model, started_at, ended_at, stop_reason, steps, input_tokens, output_tokens, error_code';

/** A finished run; one saved again replaces what was saved for it. */
export const saveRun = sqlOf({
  sqlite: `INSERT OR REPLACE INTO runs (${columns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
  postgres: `INSERT INTO runs (${columns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
   ON CONFLICT (run_id) DO UPDATE SET session_id = EXCLUDED.session_id, model = EXCLUDED.model,
     started_at = EXCLUDED.started_at, ended_at = EXCLUDED.ended_at, stop_reason = EXCLUDED.stop_reason,
     steps = EXCLUDED.steps, input_tokens = EXCLUDED.input_tokens, output_tokens = EXCLUDED.output_tokens,
     error_code = EXCLUDED.error_code`,
});

/** The latest $1 runs, newest first. */
export const listRuns = sql(`SELECT ${columns} FROM runs ORDER BY started_at DESC LIMIT $1`);

/** A session's latest $2 runs, newest first. */
export const listSessionRuns = sql(
  `SELECT ${columns} FROM runs WHERE session_id = $1 ORDER BY started_at DESC LIMIT $2`,
);
