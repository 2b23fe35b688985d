/**
 * The SQL of the server's runs (table `server_runs`), for `SqlServerRuns`
 * and its two dialects: each statement written with `$1`, `$2`, … in both.
 * The statements both dialects run come first; then the recovery reads only
 * the SQLite server makes (one process, recovering at start-up), then the
 * lease statements only PostgreSQL runs (nodes sharing the table).
 *
 * @module
 */
import { sql, sqlOf } from '../sql/sql-program.js';

/** PostgreSQL's clock in milliseconds: every node reads one clock, so a lease means the same time on each. */
const databaseNow = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

/**
 * A run, `running` from now ($7). PostgreSQL also gives its lease to the
 * node that accepted it ($8, for $9 ms; no lease when they are null), and
 * leaves a run already recorded as it is.
 */
export const insertServerRun = sqlOf({
  sqlite: `INSERT INTO server_runs (run_id, session_id, tenant_id, principal, locale, status, message_offset, started_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, 'running', $6, $7, $7)`,
  postgres: `INSERT INTO server_runs (run_id, session_id, tenant_id, principal, locale, status, message_offset, started_at, updated_at,
     lease_owner, lease_expires_at)
   VALUES ($1, $2, $3, $4, $5, 'running', $6, $7, $7, $8, ${databaseNow} + $9)
   ON CONFLICT (run_id) DO NOTHING`,
});

export const findServerRun = sql('SELECT * FROM server_runs WHERE run_id = $1');

/** A session's runs, oldest first (runs started in the same millisecond: SQLite in insertion order). */
export const serverRunsOfSession = sqlOf({
  sqlite: 'SELECT * FROM server_runs WHERE session_id = $1 ORDER BY started_at, rowid',
  postgres: 'SELECT * FROM server_runs WHERE session_id = $1 ORDER BY started_at, run_id',
});

/** A run's status, failure and time; a lease is left as it is. */
export const setServerRunStatus = sql(
  'UPDATE server_runs SET status = $2, failure = $3, updated_at = $4 WHERE run_id = $1',
);

// Recovery at start-up, on SQLite: one process executes every run, so what was running when it stopped is its own.

/** Runs left `running` that are still their session's active run. */
export const interruptedServerRuns = sql(
  `SELECT r.* FROM server_runs r JOIN sessions s ON s.session_id = r.session_id AND s.active_run_id = r.run_id
   WHERE r.status = 'running'`,
);

/** Runs left `running` whose session has left them. */
export const lostServerRuns = sql(
  `SELECT r.* FROM server_runs r LEFT JOIN sessions s ON s.session_id = r.session_id
   WHERE r.status = 'running' AND (s.active_run_id IS NULL OR s.active_run_id <> r.run_id)`,
);

/** Runs that ended while their session still has them running. */
export const unendedServerRuns = sql(
  `SELECT r.* FROM server_runs r JOIN sessions s ON s.session_id = r.session_id AND s.active_run_id = r.run_id
   WHERE s.status = 'running' AND r.status <> 'running'`,
);

/** Sessions of a tenant's user running a run with no record, and where the run's messages begin. */
export const orphanedRuns = sql(
  `SELECT s.session_id, s.active_run_id, s.tenant_id, s.user_id, s.message_count, s.run_locale,
     (SELECT MIN(m.position) FROM session_messages m
      WHERE m.session_id = s.session_id AND m.run_id = s.active_run_id) AS first_position
   FROM sessions s LEFT JOIN server_runs r ON r.run_id = s.active_run_id
   WHERE s.active_run_id IS NOT NULL AND s.status = 'running' AND r.run_id IS NULL
     AND s.tenant_id IS NOT NULL AND s.user_id IS NOT NULL`,
);

// Leases, on PostgreSQL: the node executing a run holds its lease; lease times are the database's clock.

/** Takes the oldest runs to execute whose lease is free or lapsed; rows another node is claiming right now are skipped. */
export const claimServerRuns = sql(
  `UPDATE server_runs SET lease_owner = $1, lease_expires_at = ${databaseNow} + $2
   WHERE run_id IN (
     SELECT run_id FROM server_runs
     WHERE status = 'running' AND (lease_expires_at IS NULL OR lease_expires_at < ${databaseNow})
     ORDER BY updated_at, run_id
     LIMIT $3
     FOR UPDATE SKIP LOCKED)
   RETURNING *`,
);

export const renewServerRunLease = sql(
  `UPDATE server_runs SET lease_expires_at = ${databaseNow} + $3
   WHERE run_id = $1 AND lease_owner = $2 AND status = 'running'
   RETURNING run_id`,
);

export const renewServerRunLeases = sql(
  `UPDATE server_runs SET lease_expires_at = ${databaseNow} + $3
   WHERE run_id = ANY($1::text[]) AND lease_owner = $2 AND status = 'running'
   RETURNING run_id`,
);

export const releaseServerRunLease = sql(
  'UPDATE server_runs SET lease_owner = NULL, lease_expires_at = NULL WHERE run_id = $1 AND lease_owner = $2 RETURNING run_id',
);

/** The status a run stopped with, its lease let go; a run that stops for approval after its approvals were decided (requeue came first) is requeued at once. */
export const finishServerRun = sql(
  `UPDATE server_runs SET
     status = CASE WHEN $3 = 'awaiting_approval' AND resume_requested THEN 'running' ELSE $3 END,
     failure = $4, updated_at = $5, lease_owner = NULL, lease_expires_at = NULL, resume_requested = false
   WHERE run_id = $1 AND (lease_owner = $2 OR lease_owner IS NULL)
   RETURNING status`,
);

export const requeueServerRun = sql(
  `UPDATE server_runs SET
     status = CASE WHEN status = 'awaiting_approval' THEN 'running' ELSE status END,
     resume_requested = (status = 'running' AND lease_owner IS NOT NULL),
     failure = NULL, updated_at = $2,
     lease_owner = CASE WHEN status = 'awaiting_approval' THEN NULL ELSE lease_owner END,
     lease_expires_at = CASE WHEN status = 'awaiting_approval' THEN NULL ELSE lease_expires_at END
   WHERE run_id = $1 AND status IN ('awaiting_approval', 'running')
   RETURNING status, resume_requested`,
);

export const removeServerRun = sql('DELETE FROM server_runs WHERE run_id = $1 AND lease_owner = $2');

/**
 * Records the runs of sessions running a run with no record (its node died
 * between the begin and the record), still since $1: for the session's
 * owner without roles, in the language the session recorded, with no lease
 * (claimable at once).
 */
export const adoptOrphanedRuns = sql(
  `INSERT INTO server_runs (run_id, session_id, tenant_id, principal, locale, status, message_offset, started_at, updated_at)
   SELECT s.active_run_id, s.session_id, s.tenant_id,
     json_build_object('tenantId', s.tenant_id, 'userId', s.user_id, 'roles', json_build_array())::text,
     CASE WHEN s.run_locale IN ('en', 'zh-CN') THEN s.run_locale ELSE 'en' END,
     'running',
     coalesce((SELECT min(m.position) FROM session_messages m
               WHERE m.session_id = s.session_id AND m.run_id = s.active_run_id), s.message_count),
     $2, $2
   FROM sessions s
   WHERE s.status = 'running' AND s.active_run_id IS NOT NULL AND s.tenant_id IS NOT NULL AND s.user_id IS NOT NULL
     AND s.updated_at < $1
     AND NOT EXISTS (SELECT 1 FROM server_runs r WHERE r.run_id = s.active_run_id)
   ON CONFLICT (run_id) DO NOTHING
   RETURNING run_id`,
);

export const serverRunLease = sql(
  `SELECT lease_owner, lease_expires_at - ${databaseNow} AS left_ms FROM server_runs WHERE run_id = $1`,
);

/** Tells every node on channel $1 that run $2 is free to claim. */
export const notifyRunQueue = sql('SELECT pg_notify($1, $2)');
