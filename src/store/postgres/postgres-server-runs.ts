import {
  failureColumn,
  keptFailure,
  type NewServerRun,
  type RunFailure,
  recordedServerRun,
  type ServerRun,
  type ServerRunRow,
  type ServerRunStatus,
  toServerRun,
} from '../server-run.js';
import { namedStatement } from './named-statement.js';
import type { PostgresDatabase, PostgresQuery } from './postgres-database.js';

/** The database's clock in milliseconds: every node reads one clock, so a lease means the same time on each. */
const databaseNow = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

const insert = namedStatement(
  `INSERT INTO server_runs (run_id, session_id, tenant_id, principal, locale, status, message_offset, started_at, updated_at,
     lease_owner, lease_expires_at)
   VALUES ($1, $2, $3, $4, $5, 'running', $6, $7, $7, $8, ${databaseNow} + $9)
   ON CONFLICT (run_id) DO NOTHING`,
);
const find = namedStatement('SELECT * FROM server_runs WHERE run_id = $1');
const forSession = namedStatement('SELECT * FROM server_runs WHERE session_id = $1 ORDER BY started_at, run_id');
const setStatus = namedStatement('UPDATE server_runs SET status = $2, failure = $3, updated_at = $4 WHERE run_id = $1');
// The oldest runs to execute whose lease is free or lapsed; rows another node is claiming right now are skipped.
const claim = namedStatement(
  `UPDATE server_runs SET lease_owner = $1, lease_expires_at = ${databaseNow} + $2
   WHERE run_id IN (
     SELECT run_id FROM server_runs
     WHERE status = 'running' AND (lease_expires_at IS NULL OR lease_expires_at < ${databaseNow})
     ORDER BY updated_at, run_id
     LIMIT $3
     FOR UPDATE SKIP LOCKED)
   RETURNING *`,
);
const renew = namedStatement(
  `UPDATE server_runs SET lease_expires_at = ${databaseNow} + $3
   WHERE run_id = $1 AND lease_owner = $2 AND status = 'running'
   RETURNING run_id`,
);
const renewMany = namedStatement(
  `UPDATE server_runs SET lease_expires_at = ${databaseNow} + $3
   WHERE run_id = ANY($1::text[]) AND lease_owner = $2 AND status = 'running'
   RETURNING run_id`,
);
const release = namedStatement(
  'UPDATE server_runs SET lease_owner = NULL, lease_expires_at = NULL WHERE run_id = $1 AND lease_owner = $2 RETURNING run_id',
);
// A run that stops for approval after its approvals were decided (requeue came first) is requeued at once.
const finish = namedStatement(
  `UPDATE server_runs SET
     status = CASE WHEN $3 = 'awaiting_approval' AND resume_requested THEN 'running' ELSE $3 END,
     failure = $4, updated_at = $5, lease_owner = NULL, lease_expires_at = NULL, resume_requested = false
   WHERE run_id = $1 AND (lease_owner = $2 OR lease_owner IS NULL)
   RETURNING status`,
);
const requeue = namedStatement(
  `UPDATE server_runs SET
     status = CASE WHEN status = 'awaiting_approval' THEN 'running' ELSE status END,
     resume_requested = (status = 'running' AND lease_owner IS NOT NULL),
     failure = NULL, updated_at = $2,
     lease_owner = CASE WHEN status = 'awaiting_approval' THEN NULL ELSE lease_owner END,
     lease_expires_at = CASE WHEN status = 'awaiting_approval' THEN NULL ELSE lease_expires_at END
   WHERE run_id = $1 AND status IN ('awaiting_approval', 'running')
   RETURNING status, resume_requested`,
);
const remove = namedStatement('DELETE FROM server_runs WHERE run_id = $1 AND lease_owner = $2');
// Sessions running a run with no record (its node died between the begin and the record): adopted, for
// the session's owner without roles, in the language the session recorded, with no lease (claimable at once).
const adoptOrphans = namedStatement(
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
const leaseOf = namedStatement(
  `SELECT lease_owner, lease_expires_at - ${databaseNow} AS left_ms FROM server_runs WHERE run_id = $1`,
);

/** Nodes are told on this channel that a run is free to claim (payload: its id, for the logs only). */
export const runQueueChannel = 'arbiter_runs';

/** Who holds a run's lease and for how much longer (negative: lapsed). */
export interface RunLease {
  readonly owner: string | undefined;
  readonly leftMs: number | undefined;
}

/**
 * The server's runs in PostgreSQL (table `server_runs`), shared by every
 * node on the database, and the lease that says which node executes each.
 * A run with status `running` is work: the node that accepted it holds its
 * lease from `insert`, renews it while the run executes (`renew`) and lets
 * go at the end (`finish`); a node that dies stops renewing, and once the
 * lease lapses another node's `claim` takes the run (`FOR UPDATE SKIP
 * LOCKED`: nodes claiming at once never take the same run, and never wait
 * on each other's rows) and resumes it from its journal. A run waiting for
 * approval holds no lease; `requeue` makes it work again once decided.
 * Lease times are the database's clock, so nodes' clocks need not agree.
 *
 * @example
 * const runs = new PostgresServerRuns({ database });
 * for (const run of await runs.claim({ owner: nodeId, leaseMs: 15_000 })) resume(run);
 */
export class PostgresServerRuns {
  readonly #database: PostgresDatabase;
  readonly #now: () => number;

  constructor({ database, now = Date.now }: { database: PostgresDatabase; now?: () => number }) {
    this.#database = database;
    this.#now = now;
  }

  /** Records a run the node `owner` accepted, holding its lease for `leaseMs`. */
  async insert(run: NewServerRun, { owner, leaseMs }: { owner: string; leaseMs: number }): Promise<ServerRun> {
    const now = this.#now();
    await this.#database.query(insert, [
      run.runId,
      run.sessionId,
      run.tenantId,
      JSON.stringify(run.principal),
      run.locale,
      run.messageOffset,
      now,
      owner,
      leaseMs,
    ]);
    return recordedServerRun(run, now);
  }

  async find(runId: string): Promise<ServerRun | undefined> {
    const { rows } = await this.#database.query<ServerRunRow>(find, [runId]);
    return rows[0] === undefined ? undefined : toServerRun(rows[0]);
  }

  /** The session's runs, oldest first. */
  async listForSession(sessionId: string): Promise<ServerRun[]> {
    const { rows } = await this.#database.query<ServerRunRow>(forSession, [sessionId]);
    return rows.map(toServerRun);
  }

  /** Records where the run stands (a status other than `error` clears the failure); the lease is left as it is. */
  async setStatus(runId: string, status: ServerRunStatus, failure?: RunFailure): Promise<void> {
    await this.#database.query(setStatus, [runId, status, failureColumn(keptFailure(status, failure)), this.#now()]);
  }

  /**
   * Takes up to `limit` runs to execute whose lease is free or has lapsed,
   * oldest first, for `leaseMs`; the runs another node holds or is claiming
   * are left alone.
   */
  async claim({
    owner,
    leaseMs,
    limit = 10,
  }: {
    owner: string;
    leaseMs: number;
    limit?: number;
  }): Promise<ServerRun[]> {
    const { rows } = await this.#database.query<ServerRunRow>(claim, [owner, leaseMs, limit]);
    return rows.map(toServerRun);
  }

  /** Extends `owner`'s lease on a running run to `leaseMs` from now; false when `owner` no longer holds it. */
  async renew({ runId, owner, leaseMs }: { runId: string; owner: string; leaseMs: number }): Promise<boolean> {
    return (await this.#database.query(renew, [runId, owner, leaseMs])).rowCount === 1;
  }

  /** `renew` for many runs in one statement; returns the ids whose lease `owner` still holds. */
  async renewMany({
    runIds,
    owner,
    leaseMs,
  }: {
    runIds: readonly string[];
    owner: string;
    leaseMs: number;
  }): Promise<Set<string>> {
    if (runIds.length === 0) return new Set();
    const { rows } = await this.#database.query<{ run_id: string }>(renewMany, [runIds, owner, leaseMs]);
    return new Set(rows.map((row) => row.run_id));
  }

  /** Lets go of `owner`'s lease (another node may claim the run at once); false when `owner` did not hold it. */
  async release({ runId, owner }: { runId: string; owner: string }): Promise<boolean> {
    return (await this.#database.query(release, [runId, owner])).rowCount === 1;
  }

  /**
   * Records the status the run stopped with and lets go of the lease, in one
   * statement; false (and nothing written) when another node holds it.
   */
  async finish({
    runId,
    owner,
    status,
    failure,
    query,
  }: {
    runId: string;
    owner: string;
    status: ServerRunStatus;
    failure?: RunFailure | undefined;
    /** Another transaction's connection to write on (the one that writes the run's terminal event). */
    query?: PostgresQuery | undefined;
  }): Promise<boolean> {
    const values = [runId, owner, status, failureColumn(keptFailure(status, failure)), this.#now()];
    const run: PostgresQuery = query ?? ((statement, parameters) => this.#database.query(statement, parameters));
    const { rows } = await run<{ status: string }>(finish, values);
    if (rows[0]?.status === 'running' && status !== 'running') {
      // Requeued as it stopped: every node is told it may claim it.
      await run('SELECT pg_notify($1, $2)', [runQueueChannel, runId]);
    }
    return rows.length === 1;
  }

  /**
   * Makes a run that waited for approval work again, for whichever node
   * claims it first: `requeued`. A run still `running` (its approvals were
   * decided while it was stopping) is marked, and `finish` requeues it as it
   * stops: `deferred`. Otherwise (ended, unknown): `not_waiting`.
   */
  async requeue(
    runId: string,
    { wake = false }: { wake?: boolean } = {},
  ): Promise<'requeued' | 'deferred' | 'not_waiting'> {
    const { rows } = await this.#database.query<{ status: string; resume_requested: boolean }>(requeue, [
      runId,
      this.#now(),
    ]);
    const row = rows[0];
    if (row === undefined) return 'not_waiting';
    if (row.resume_requested) return 'deferred';
    // Every node is told it may claim the run (a node requeueing it does this itself, after its own bookkeeping).
    if (wake) await this.#database.query('SELECT pg_notify($1, $2)', [runQueueChannel, runId]);
    return 'requeued';
  }

  /** Deletes a run `owner` recorded and could not begin (its session refused it). */
  async remove({ runId, owner }: { runId: string; owner: string }): Promise<void> {
    await this.#database.query(remove, [runId, owner]);
  }

  /**
   * Records the runs of sessions left running with no record of the run
   * (a node died between marking the session and recording the run), when
   * the session has not moved for `olderThanMs`: each for the session's
   * owner, without roles, free for any node to claim. Returns their ids.
   */
  async adoptOrphans({ olderThanMs }: { olderThanMs: number }): Promise<string[]> {
    const now = this.#now();
    const { rows } = await this.#database.query<{ run_id: string }>(adoptOrphans, [now - olderThanMs, now]);
    return rows.map((row) => row.run_id);
  }

  /** Who holds the run's lease, and for how long yet. */
  async lease(runId: string): Promise<RunLease> {
    const { rows } = await this.#database.query<{ lease_owner: string | null; left_ms: number | null }>(leaseOf, [
      runId,
    ]);
    return { owner: rows[0]?.lease_owner ?? undefined, leftMs: rows[0]?.left_ms ?? undefined };
  }
}
