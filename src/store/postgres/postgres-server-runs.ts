import { failureColumn, keptFailure, type RunFailure, type ServerRun, type ServerRunStatus } from '../server-run.js';
import {
  adoptOrphanedRuns,
  claimServerRuns,
  finishServerRun,
  notifyRunQueue,
  releaseServerRunLease,
  removeServerRun,
  renewServerRunLease,
  renewServerRunLeases,
  requeueServerRun,
  serverRunLease,
} from '../server-runs/server-run-statements.js';
import { SqlServerRuns } from '../server-runs/sql-server-runs.js';
import { PostgresPort } from '../sql/postgres-port.js';
import { rows, run, type SqlProgram } from '../sql/sql-program.js';
import type { PostgresDatabase, PostgresQuery } from './postgres-database.js';

/** Nodes are told on this channel that a run is free to claim (payload: its id, for the logs only). */
export const runQueueChannel = 'arbiter_runs';

/** Who holds a run's lease and for how much longer (negative: lapsed). */
export interface RunLease {
  readonly owner: string | undefined;
  readonly leftMs: number | undefined;
}

/**
 * The server's runs in PostgreSQL (table `server_runs`), shared by every
 * node on the database: the runs of `SqlServerRuns`, and the lease that
 * says which node executes each. A run with status `running` is work: the
 * node that accepted it holds its lease from `insert`, renews it while the
 * run executes (`renew`) and lets go at the end (`finish`); a node that
 * dies stops renewing, and once the lease lapses another node's `claim`
 * takes the run (`FOR UPDATE SKIP LOCKED`: nodes claiming at once never
 * take the same run, and never wait on each other's rows) and resumes it
 * from its journal. A run waiting for approval holds no lease; `requeue`
 * makes it work again once decided. Lease times are the database's clock,
 * so nodes' clocks need not agree.
 *
 * @example
 * const runs = new PostgresServerRuns({ database });
 * for (const run of await runs.claim({ owner: nodeId, leaseMs: 15_000 })) resume(run);
 */
export class PostgresServerRuns extends SqlServerRuns<'async'> {
  readonly #port: PostgresPort;

  constructor({ database, now = Date.now }: { database: PostgresDatabase; now?: () => number }) {
    const port = new PostgresPort(database);
    super({ port, now });
    this.#port = port;
  }

  /**
   * Takes up to `limit` runs to execute whose lease is free or has lapsed,
   * oldest first, for `leaseMs`; the runs another node holds or is claiming
   * are left alone.
   */
  claim({ owner, leaseMs, limit = 10 }: { owner: string; leaseMs: number; limit?: number }): Promise<ServerRun[]> {
    return this.list(claimServerRuns, [owner, leaseMs, limit]);
  }

  /** Extends `owner`'s lease on a running run to `leaseMs` from now; false when `owner` no longer holds it. */
  async renew({ runId, owner, leaseMs }: { runId: string; owner: string; leaseMs: number }): Promise<boolean> {
    return (await this.port.run(run(renewServerRunLease, [runId, owner, leaseMs]))) === 1;
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
    const kept = await this.port.run(rows<{ run_id: string }>(renewServerRunLeases, [runIds, owner, leaseMs]));
    return new Set(kept.map((row) => row.run_id));
  }

  /** Lets go of `owner`'s lease (another node may claim the run at once); false when `owner` did not hold it. */
  async release({ runId, owner }: { runId: string; owner: string }): Promise<boolean> {
    return (await this.port.run(run(releaseServerRunLease, [runId, owner]))) === 1;
  }

  /**
   * Records the status the run stopped with and lets go of the lease, in one
   * statement; false (and nothing written) when another node holds it.
   */
  finish({
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
    const port = query === undefined ? this.port : this.#port.within(query);
    return port.run(finishRun(runId, owner, status, failureColumn(keptFailure(status, failure)), this.now()));
  }

  /**
   * Makes a run that waited for approval work again, for whichever node
   * claims it first: `requeued`. A run still `running` (its approvals were
   * decided while it was stopping) is marked, and `finish` requeues it as it
   * stops: `deferred`. Otherwise (ended, unknown): `not_waiting`.
   */
  requeue(runId: string, { wake = false }: { wake?: boolean } = {}): Promise<'requeued' | 'deferred' | 'not_waiting'> {
    return this.port.run(requeueRun(runId, this.now(), wake));
  }

  /** Deletes a run `owner` recorded and could not begin (its session refused it). */
  async remove({ runId, owner }: { runId: string; owner: string }): Promise<void> {
    await this.port.run(run(removeServerRun, [runId, owner]));
  }

  /**
   * Records the runs of sessions left running with no record of the run
   * (a node died between marking the session and recording the run), when
   * the session has not moved for `olderThanMs`: each for the session's
   * owner, without roles, free for any node to claim. Returns their ids.
   */
  async adoptOrphans({ olderThanMs }: { olderThanMs: number }): Promise<string[]> {
    const now = this.now();
    const adopted = await this.port.run(rows<{ run_id: string }>(adoptOrphanedRuns, [now - olderThanMs, now]));
    return adopted.map((row) => row.run_id);
  }

  /** Who holds the run's lease, and for how long yet. */
  async lease(runId: string): Promise<RunLease> {
    const [row] = await this.port.run(
      rows<{ lease_owner: string | null; left_ms: number | null }>(serverRunLease, [runId]),
    );
    return { owner: row?.lease_owner ?? undefined, leftMs: row?.left_ms ?? undefined };
  }
}

function* finishRun(
  runId: string,
  owner: string,
  status: ServerRunStatus,
  failure: string | null,
  updatedAt: number,
): SqlProgram<boolean> {
  const finished = yield* rows<{ status: string }>(finishServerRun, [runId, owner, status, failure, updatedAt]);
  // Requeued as it stopped: every node is told it may claim it.
  if (finished[0]?.status === 'running' && status !== 'running') yield* run(notifyRunQueue, [runQueueChannel, runId]);
  return finished.length === 1;
}

function* requeueRun(
  runId: string,
  updatedAt: number,
  wake: boolean,
): SqlProgram<'requeued' | 'deferred' | 'not_waiting'> {
  const [row] = yield* rows<{ status: string; resume_requested: boolean }>(requeueServerRun, [runId, updatedAt]);
  if (row === undefined) return 'not_waiting';
  if (row.resume_requested) return 'deferred';
  // Every node is told it may claim the run (a node requeueing it does this itself, after its own bookkeeping).
  if (wake) yield* run(notifyRunQueue, [runQueueChannel, runId]);
  return 'requeued';
}
