/**
 * The SQL of `SqlSessionStore`, in both dialects, with `$1`, `$2`, … for
 * the parameters. Where the dialects write a statement differently, the
 * difference is here and only here: PostgreSQL's row locks (`FOR UPDATE`,
 * `FOR SHARE`: SQLite's `BEGIN IMMEDIATE` already keeps other writers out),
 * `GREATEST` for SQLite's two-argument `MAX`, text arrays for SQLite's JSON
 * ones, and how the messages come back with their session's row.
 *
 * @module
 */
import { type SqlStatement, sql, sqlOf } from '../sql/sql-program.js';

/** The columns of `sessions` a `SessionRow` holds. */
const columns = `session_id, tenant_id, user_id, status, active_run_id, run_steps, run_input_tokens, run_output_tokens,
  run_cached_tokens, run_last_seq, run_cost, step_count, input_tokens, output_tokens, cost, slots, message_count,
  version, forked_from, forked_at, created_at, updated_at, expires_at, ttl_ms, run_locale, run_model`;

/**
 * What every write does to the session row besides its own change: one
 * more version, the time (the parameter `now`), and a TTL pushed forward.
 */
const touch = (now: string) =>
  `version = version + 1, updated_at = ${now}, expires_at = CASE WHEN ttl_ms IS NULL THEN expires_at ELSE ${now} + ttl_ms END`;

/**
 * `touch` for a session known to have no TTL, on SQLite: `expires_at` left out
 * of the SET, since a column a statement sets costs SQLite its index's page,
 * changed or not (`sessions_by_expiry`; see `commitStepText`). PostgreSQL
 * writes an unchanged column in place and keeps `touch`.
 */
const touchWithoutTtl = (now: string) => `version = version + 1, updated_at = ${now}`;

/** The columns of `LockedSessionRow`. */
const lockedColumns = 'session_id, active_run_id, message_count, version, slots, ttl_ms';

/** A session's row, by id (`$1`), as a `SessionRow`. */
const selectRow = `SELECT ${columns} FROM sessions WHERE session_id = $1`;

/** Messages one INSERT writes at most; a longer list takes several. */
export const messagesPerInsert = 8;

/** `beginRun` with `touched` as what else the write changes (`touch`, or `touchWithoutTtl` on SQLite). */
function beginRunStatement(touched: (now: string) => string): SqlStatement {
  const text = (touchedText: string) =>
    `UPDATE sessions SET status = 'running', active_run_id = $2, run_steps = 0, run_input_tokens = 0,
       run_output_tokens = 0, run_cached_tokens = 0, run_last_seq = 0, run_cost = 0,
       run_locale = $3, run_model = $4, message_count = message_count + $5, ${touchedText}
     WHERE session_id = $6`;
  return sqlOf({ sqlite: text(touched('CAST($1 AS BIGINT)')), postgres: text(touch('CAST($1 AS BIGINT)')) });
}

/** `endRun`; `withoutTtl`: on SQLite, only for a session without a TTL, with the `touch` without it. */
function endRunStatement({ withoutTtl }: { withoutTtl: boolean }): SqlStatement {
  return sqlOf({
    sqlite: `UPDATE sessions SET status = $2,
       active_run_id = CASE WHEN $2 = 'idle' THEN NULL ELSE active_run_id END,
       run_last_seq = MAX(run_last_seq, $3), ${withoutTtl ? touchWithoutTtl('$1') : touch('$1')}
     WHERE session_id = $4 AND active_run_id = $5${withoutTtl ? ' AND ttl_ms IS NULL' : ''}`,
    postgres: `UPDATE sessions SET status = $2::text,
       active_run_id = CASE WHEN $2::text = 'idle' THEN NULL ELSE active_run_id END,
       run_last_seq = GREATEST(run_last_seq, $3::bigint), ${touch('$1::bigint')}
     WHERE session_id = $4 AND active_run_id = $5`,
  });
}

/**
 * A step commit's update of the session row, fenced on the run still being
 * its active run (`$10`) and, when `$11` is not null, its messages being
 * where the journal expects them. The counters are the run's totals so
 * far: the session's grow by what the run's grew since its last commit
 * (each SET expression reads the row as it was). Not `updated_at`: the
 * commit is the write a run makes most, and an index on a column a
 * statement sets costs SQLite a page per commit, changed or not (and
 * PostgreSQL a HOT update); the run moved it when it began and moves it
 * when it ends or waits for a person. `expires_at` only for a session with
 * a TTL, for the same reason (PostgreSQL, which writes an unchanged column
 * in place, always takes the TTL's text).
 *
 * $1 messages appended, $2 steps, $3 input tokens, $4 output tokens,
 * $5 cost or null, $6 cached tokens, $7 last event seq or null, $8 now,
 * $9 session, $10 run, $11 message count expected or null.
 */
function commitStepText({ greatest, ttl }: { greatest: string; ttl: boolean }): string {
  const expires = ttl
    ? ', expires_at = CASE WHEN ttl_ms IS NULL THEN expires_at ELSE CAST($8 AS BIGINT) + ttl_ms END'
    : '';
  return `UPDATE sessions SET message_count = message_count + $1,
     step_count = step_count + ${greatest}(0, $2 - run_steps),
     input_tokens = input_tokens + ${greatest}(0, $3 - run_input_tokens),
     output_tokens = output_tokens + ${greatest}(0, $4 - run_output_tokens),
     cost = cost + ${greatest}(0, COALESCE($5, run_cost) - run_cost),
     run_steps = ${greatest}(run_steps, $2),
     run_input_tokens = ${greatest}(run_input_tokens, $3), run_output_tokens = ${greatest}(run_output_tokens, $4),
     run_cached_tokens = ${greatest}(run_cached_tokens, $6), run_cost = ${greatest}(run_cost, COALESCE($5, run_cost)),
     run_last_seq = ${greatest}(run_last_seq, COALESCE($7, run_last_seq)), version = version + 1${expires}
   WHERE session_id = $9 AND active_run_id = $10 AND (CAST($11 AS BIGINT) IS NULL OR message_count = CAST($11 AS BIGINT))`;
}

/**
 * The step commit for a session with a TTL, or without one: `fenced`
 * answers only whether the row changed (the count it leaves is known;
 * `RETURNING` costs SQLite a temporary table per statement), `unfenced`
 * reads the count back.
 */
function commitStep(ttl: boolean): { fenced: SqlStatement; unfenced: SqlStatement } {
  const sqlite = commitStepText({ greatest: 'MAX', ttl });
  const postgres = commitStepText({ greatest: 'GREATEST', ttl: true });
  return {
    fenced: sqlOf({ sqlite, postgres }),
    unfenced: sqlOf({ sqlite: `${sqlite} RETURNING message_count`, postgres: `${postgres} RETURNING message_count` }),
  };
}

/**
 * A journal's first step commit, before it knows whether the session has a
 * TTL: the shape that fits both, reading back the count and the answer.
 */
const firstCommitStep = sqlOf({
  sqlite: `${commitStepText({ greatest: 'MAX', ttl: true })} RETURNING message_count, ttl_ms IS NOT NULL AS has_ttl`,
  postgres: `${commitStepText({ greatest: 'GREATEST', ttl: true })} RETURNING message_count, ttl_ms IS NOT NULL AS has_ttl`,
});

/**
 * A journal's first step commit when it knows where the messages are (the
 * fence `$11` given): the update of a session without a TTL, which changes
 * nothing for one with a TTL (then `firstCommitStep` runs). No `RETURNING`,
 * and on SQLite no write of `expires_at` and its index's page.
 */
const firstCommitStepWithoutTtl = sqlOf({
  sqlite: `${commitStepText({ greatest: 'MAX', ttl: false })} AND ttl_ms IS NULL`,
  postgres: `${commitStepText({ greatest: 'GREATEST', ttl: true })} AND ttl_ms IS NULL`,
});

/**
 * PostgreSQL's step commit in one statement (one round trip, a transaction
 * by itself): the update of `firstCommitStep`, then the messages ($12, a
 * text array of their JSON) inserted at the positions the count it leaves
 * gives; nothing is inserted when no row was updated. SQLite runs the
 * update and the inserts (`commitStep`, `insertMessages`) instead.
 */
const postgresStepCommit = `WITH updated AS (
     ${commitStepText({ greatest: 'GREATEST', ttl: true })} RETURNING message_count, ttl_ms IS NOT NULL AS has_ttl
   ), inserted AS (
     INSERT INTO session_messages (session_id, position, run_id, message, created_at)
     SELECT $9, updated.message_count - $1 + m.ordinality - 1, $10, m.message, $8
       FROM updated, unnest($12::text[]) WITH ORDINALITY AS m(message, ordinality)
   )
   SELECT message_count, has_ttl FROM updated`;
const commitStepWithMessages = sqlOf({ sqlite: postgresStepCommit, postgres: postgresStepCommit });

/**
 * `INSERT INTO session_messages` of 1 to `messagesPerInsert` messages, by
 * count - 1: $1 session, $2 run or null, $3 now, then each message's
 * position and JSON.
 */
const insertMessages = Array.from({ length: messagesPerInsert }, (_, index) =>
  sql(
    `INSERT INTO session_messages (session_id, position, run_id, message, created_at) VALUES ${Array.from(
      { length: index + 1 },
      (_, message) => `($1, $${4 + 2 * message}, $2, $${5 + 2 * message}, $3)`,
    ).join(', ')}`,
  ),
);

/** Every statement `SqlSessionStore` runs, by what it does. */
export const sessionStatements = {
  /** $1 session, $2 tenant, $3 user, $4 slots, $5 now, $6 expires at, $7 TTL; the new row (it has no messages). */
  create: sql(
    `INSERT INTO sessions (session_id, tenant_id, user_id, slots, created_at, updated_at, expires_at, ttl_ms)
     VALUES ($1, $2, $3, $4, $5, $5, $6, $7) RETURNING ${columns}`,
  ),
  /**
   * The row with its messages (`messages`, in position order: a text array
   * on PostgreSQL, a JSON array of texts on SQLite), in one statement and
   * so one snapshot.
   */
  load: sqlOf({
    sqlite: `SELECT ${columns},
       (SELECT json_group_array(message ORDER BY position) FROM session_messages m WHERE m.session_id = s.session_id)
         AS messages
     FROM sessions s WHERE session_id = $1`,
    postgres: `SELECT ${columns},
       ARRAY(SELECT message FROM session_messages m WHERE m.session_id = s.session_id ORDER BY position) AS messages
     FROM sessions s WHERE session_id = $1`,
  }),
  row: sql(selectRow),
  /**
   * The columns of its row a versioned write reads (`LockedSessionRow`),
   * the row locked until its transaction ends: not all 26, which cost
   * SQLite's port about 20k instructions to read (issue 48: once a run, in
   * `beginRun`).
   */
  lockRow: sqlOf({
    sqlite: `SELECT ${lockedColumns} FROM sessions WHERE session_id = $1`,
    postgres: `SELECT ${lockedColumns} FROM sessions WHERE session_id = $1 FOR UPDATE`,
  }),
  /** The row a fork copies, kept from changing until its transaction ends. */
  shareRow: sqlOf({ sqlite: selectRow, postgres: `${selectRow} FOR SHARE` }),
  /** $1 tenant or null, $2 user or null, $3 limit. */
  list: sql(
    `SELECT ${columns} FROM sessions
     WHERE (CAST($1 AS TEXT) IS NULL OR tenant_id = $1) AND (CAST($2 AS TEXT) IS NULL OR user_id = $2)
     ORDER BY updated_at DESC, session_id LIMIT $3`,
  ),
  messages: sql('SELECT message FROM session_messages WHERE session_id = $1 ORDER BY position'),
  insertMessages,
  /** $1 now, $2 messages appended, $3 session. */
  append: sql(
    `UPDATE sessions SET message_count = message_count + $2, ${touch('CAST($1 AS BIGINT)')} WHERE session_id = $3`,
  ),
  /** $1 now, $2 slots, $3 session. */
  setSlots: sql(`UPDATE sessions SET slots = $2, ${touch('CAST($1 AS BIGINT)')} WHERE session_id = $3`),
  /**
   * $1 fork, $2 tenant, $3 user, $4 slots, $5 cut, $6 forked from, $7 now,
   * $8 expires at, $9 TTL, $10 locale, $11 model.
   */
  fork: sql(
    `INSERT INTO sessions (session_id, tenant_id, user_id, slots, message_count, forked_from, forked_at,
       created_at, updated_at, expires_at, ttl_ms, run_locale, run_model)
     VALUES ($1, $2, $3, $4, $5, $6, $5, $7, $7, $8, $9, $10, $11)`,
  ),
  /** $1 fork, $2 now, $3 forked from, $4 cut. */
  forkMessages: sql(
    `INSERT INTO session_messages (session_id, position, run_id, message, created_at)
     SELECT $1, position, NULL, message, $2 FROM session_messages
     WHERE session_id = $3 AND position < $4 ORDER BY position`,
  ),
  /** $1 updated before (or null), $2 whether expired ones go, $3 now. */
  purgeable: sqlOf({
    sqlite: `SELECT session_id FROM sessions
     WHERE ($1 IS NOT NULL AND updated_at < $1) OR ($2 = 1 AND expires_at IS NOT NULL AND expires_at <= $3)
     ORDER BY session_id`,
    postgres: `SELECT session_id FROM sessions
     WHERE ($1::bigint IS NOT NULL AND updated_at < $1) OR ($2::boolean AND expires_at IS NOT NULL AND expires_at <= $3)
     ORDER BY session_id FOR UPDATE`,
  }),
  /** $1 the sessions: a text array on PostgreSQL, a JSON array on SQLite. */
  purgeToolResults: sqlOf({
    sqlite: 'DELETE FROM tool_results WHERE session_id IN (SELECT value FROM json_each($1))',
    postgres: 'DELETE FROM tool_results WHERE session_id = ANY($1::text[])',
  }),
  purgeMessages: sqlOf({
    sqlite: 'DELETE FROM session_messages WHERE session_id IN (SELECT value FROM json_each($1))',
    postgres: 'DELETE FROM session_messages WHERE session_id = ANY($1::text[])',
  }),
  purgeSessions: sqlOf({
    sqlite: 'DELETE FROM sessions WHERE session_id IN (SELECT value FROM json_each($1))',
    postgres: 'DELETE FROM sessions WHERE session_id = ANY($1::text[])',
  }),
  /** $1 now, $2 messages the resumed run brings, $3 session. */
  resumeRun: sql(
    `UPDATE sessions SET status = 'running', message_count = message_count + $2, ${touch('CAST($1 AS BIGINT)')}
     WHERE session_id = $3`,
  ),
  /**
   * $1 now, $2 run, $3 locale, $4 model, $5 messages the run brings, $6 session: `ttl` for any session,
   * `noTtl` for one whose locked row has no TTL.
   */
  beginRun: { ttl: beginRunStatement(touch), noTtl: beginRunStatement(touchWithoutTtl) },
  /**
   * $1 now, $2 status, $3 last event seq, $4 session, $5 run: `any` ends the run of any session; `noTtl` (SQLite
   * only, `endRunSteps`) that of a session without a TTL, changing nothing otherwise.
   */
  endRun: { any: endRunStatement({ withoutTtl: false }), noTtl: endRunStatement({ withoutTtl: true }) },
  commitStep: {
    first: firstCommitStep,
    firstWithoutTtl: firstCommitStepWithoutTtl,
    ttl: commitStep(true),
    noTtl: commitStep(false),
  },
  /** PostgreSQL only: the step's update and its messages ($12) in one statement. */
  commitStepWithMessages,
  /** The recorded results of a run ($1). */
  toolResults: sql('SELECT tool_call_id, tool, content, outcome FROM tool_results WHERE run_id = $1'),
  /** $1 to $7 as `toolResultValues` orders them; the first answer to a call stays. */
  recordToolResult: sql(
    `INSERT INTO tool_results (run_id, tool_call_id, session_id, tool, content, outcome, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (run_id, tool_call_id) DO NOTHING`,
  ),
} as const;
