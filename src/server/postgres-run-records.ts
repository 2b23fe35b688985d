import type { PostgresQuery } from '../store/postgres/postgres-database.js';
import type { PostgresServerRuns } from '../store/postgres/postgres-server-runs.js';
import type { OrphanedRun, RunFailure, ServerRun, ServerRunStatus } from '../store/server-run.js';
import type { SqlProgram } from '../store/sql/sql-program.js';
import type { ServerRunRecords } from './server-storage.js';

/** How long a run's end waits for its terminal event to carry it before it is written alone. */
const endingWaitMs = 2000;

/**
 * The run manager's record of runs on PostgreSQL, for one node. Writes
 * answer at once and go to `server_runs` in the background, in order per
 * run: `insert` records a run this node accepted with this node's lease;
 * a terminal status (`setStatus` with anything but `running`) is written
 * together with the release of the lease (`finish`), in the transaction of
 * the run's terminal event (`takeEnding`), or alone when no event carries
 * it within 2 s (a run that failed before its `run:start`). `held` lists the runs
 * whose lease this node holds, for the lease keeper to renew; `hold` adds
 * one it claimed. Reads wait for the run's writes, then read the table.
 * The `list…` methods answer nothing: on PostgreSQL runs are recovered by
 * claiming lapsed leases, on any node, not by a restarting process.
 *
 * @example
 * const records = new PostgresRunRecords({ runs: backend.serverRuns, nodeId, leaseMs: 15_000 });
 */
export class PostgresRunRecords implements ServerRunRecords {
  readonly #runs: PostgresServerRuns;
  readonly #nodeId: string;
  readonly #leaseMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #onNewRun: (runId: string) => void;
  /** Each run's last write still under way: the next one waits for it. */
  readonly #writes = new Map<string, Promise<void>>();
  /** The runs this node holds leases on, with their tenants (for the metrics). */
  readonly #held = new Map<string, ServerRun>();
  /** Statuses runs stopped with, waiting for their terminal event's transaction. */
  readonly #endings = new Map<string, { status: ServerRunStatus; failure: RunFailure | undefined }>();
  /** The tenants of the runs this node executed lately, for the metrics (kept past the run's end). */
  readonly #tenants = new Map<string, string>();

  constructor({
    runs,
    nodeId,
    leaseMs,
    onError = () => {},
    onNewRun = () => {},
  }: {
    runs: PostgresServerRuns;
    nodeId: string;
    leaseMs: number;
    onError?: (error: unknown) => void;
    /** Told of each run this node begins (not one it claims or resumes), before its record is written. */
    onNewRun?: (runId: string) => void;
  }) {
    this.#runs = runs;
    this.#nodeId = nodeId;
    this.#leaseMs = leaseMs;
    this.#onError = onError;
    this.#onNewRun = onNewRun;
  }

  insert(run: Omit<ServerRun, 'startedAt' | 'updatedAt' | 'status' | 'failure'>): ServerRun {
    this.#onNewRun(run.runId);
    const recorded = this.#holdNew(run);
    this.#write(run.runId, () => this.#runs.insert(run, this.#lease));
    return recorded;
  }

  insertWithin(run: Omit<ServerRun, 'startedAt' | 'updatedAt' | 'status' | 'failure'>): SqlProgram<unknown> {
    this.#onNewRun(run.runId);
    this.#holdNew(run);
    return this.#runs.insertWithin(run, this.#lease);
  }

  /** A run this node just began, held as running from now. */
  #holdNew(run: Omit<ServerRun, 'startedAt' | 'updatedAt' | 'status' | 'failure'>): ServerRun {
    const now = Date.now();
    const recorded: ServerRun = { ...run, status: 'running', startedAt: now, updatedAt: now, failure: undefined };
    this.#hold(recorded);
    return recorded;
  }

  /** The lease a run this node inserts starts with. */
  get #lease(): { owner: string; leaseMs: number } {
    return { owner: this.#nodeId, leaseMs: this.#leaseMs };
  }

  setStatus(runId: string, status: ServerRunStatus, failure?: RunFailure): void {
    if (status === 'running') {
      this.#write(runId, () => this.#runs.setStatus(runId, status));
      return;
    }
    this.#held.delete(runId);
    // Written with the run's terminal event (`takeEnding`), or on its own when no event takes it.
    const ending = { status, failure };
    this.#endings.set(runId, ending);
    setTimeout(() => {
      if (this.#endings.get(runId) !== ending) return;
      this.#endings.delete(runId);
      this.#write(runId, () => this.#runs.finish({ runId, owner: this.#nodeId, status, failure }));
    }, endingWaitMs).unref();
  }

  /**
   * Takes the status the run stopped with, to be written in the transaction
   * that writes its terminal event: a node that sees the event reads the
   * status, and a run waiting for approval is requeued only once its
   * `run:end` is in the table.
   */
  takeEnding(runId: string): { status: ServerRunStatus; failure: RunFailure | undefined } | undefined {
    const ending = this.#endings.get(runId);
    this.#endings.delete(runId);
    return ending;
  }

  /** Gives back an ending taken by `takeEnding` whose transaction failed: the retried write takes it again. */
  restoreEnding({
    runId,
    status,
    failure,
  }: {
    runId: string;
    status: ServerRunStatus;
    failure: RunFailure | undefined;
  }): void {
    if (!this.#endings.has(runId)) this.#endings.set(runId, { status, failure });
  }

  /** Writes an ending taken by `takeEnding` on the terminal event's transaction. */
  async finishIn(
    query: PostgresQuery,
    { runId, status, failure }: { runId: string; status: ServerRunStatus; failure: RunFailure | undefined },
  ): Promise<void> {
    await this.#runs.finish({ runId, owner: this.#nodeId, status, failure, query });
  }

  async flush(): Promise<void> {
    for (const [runId, { status, failure }] of this.#endings) {
      this.#endings.delete(runId);
      this.#write(runId, () => this.#runs.finish({ runId, owner: this.#nodeId, status, failure }));
    }
    await Promise.all(this.#writes.values());
  }

  async written(runId: string): Promise<void> {
    await this.#writes.get(runId);
  }

  async find(runId: string): Promise<ServerRun | undefined> {
    // A run this node holds is running here, as recorded when it was taken: no read (a stream's check, above all).
    const held = this.#held.get(runId);
    if (held !== undefined) return held;
    await this.#writes.get(runId);
    return this.#runs.find(runId);
  }

  async listForSession(sessionId: string): Promise<ServerRun[]> {
    await this.flush();
    return this.#runs.listForSession(sessionId);
  }

  listInterrupted(): ServerRun[] {
    return [];
  }

  listLost(): ServerRun[] {
    return [];
  }

  listUnended(): ServerRun[] {
    return [];
  }

  listOrphans(): OrphanedRun[] {
    return [];
  }

  /** Marks a run this node claimed as held (renewed until it ends). */
  hold(run: ServerRun): void {
    this.#hold(run);
  }

  /** Forgets a held run (its lease was lost, or it was settled without running). */
  drop(runId: string): void {
    this.#held.delete(runId);
  }

  /** The runs this node holds leases on. */
  held(): ServerRun[] {
    return [...this.#held.values()];
  }

  /** The tenant of a run this node holds, for the metrics. */
  tenantOf(runId: string): string | undefined {
    return this.#tenants.get(runId);
  }

  /** Whether a run's writes are still under way here (its insert, above all). */
  writing(runId: string): Promise<void> | undefined {
    return this.#writes.get(runId);
  }

  #hold(run: ServerRun): void {
    this.#held.set(run.runId, run);
    this.#tenants.set(run.runId, run.tenantId);
    // The oldest go first: a run's metrics are observed while it executes.
    if (this.#tenants.size > 10_000) this.#tenants.delete(this.#tenants.keys().next().value as string);
  }

  #write(runId: string, write: () => Promise<unknown>): void {
    const previous = this.#writes.get(runId) ?? Promise.resolve();
    const next = previous
      .then(write)
      .then(
        () => {},
        (error: unknown) => this.#onError(error),
      )
      .finally(() => {
        if (this.#writes.get(runId) === next) this.#writes.delete(runId);
      });
    this.#writes.set(runId, next);
  }
}
