import type { Awaitable } from '../core/awaitable.js';
import type { Principal } from '../core/principal.js';
import type { ApprovalStore } from '../store/backend.js';
import type { OrphanedRun, RunFailure, ServerRun, ServerRunStatus } from '../store/server-run.js';
import type { SqlProgram } from '../store/sql/sql-program.js';

/**
 * What the run manager records about the runs it executes. Writes answer
 * at once (a backend that cannot write at once queues them, in order, and
 * `find` shows what is queued); reads may answer with a promise. The
 * `list…` methods serve start-up recovery on one machine
 * (`resumeInterrupted`) and answer synchronously; a backend that recovers
 * runs otherwise (leases on PostgreSQL) answers them with nothing.
 *
 * `ServerRuns` (SQLite) is one; the PostgreSQL server's is another.
 *
 * @example
 * const run = await records.find(runId);
 * records.setStatus(runId, 'completed');
 */
export interface ServerRunRecords {
  insert(run: Omit<ServerRun, 'startedAt' | 'updatedAt' | 'status' | 'failure'>): ServerRun;
  /**
   * `insert`, written by the program this returns instead, run in the
   * transaction that begins the run in its session (the same database):
   * the record and the session's run commit together, or neither does.
   */
  insertWithin?(run: Omit<ServerRun, 'startedAt' | 'updatedAt' | 'status' | 'failure'>): SqlProgram<unknown>;
  setStatus(runId: string, status: ServerRunStatus, failure?: RunFailure): void;
  /** Writes what is queued, now. */
  flush(): Awaitable<void>;
  /**
   * Resolves once what was recorded about the run is in the database; for a
   * backend that writes behind (PostgreSQL's), so a run is not announced to
   * a client (202) before another node can find it. Absent: written at once.
   */
  written?(runId: string): Promise<void>;
  find(runId: string): Awaitable<ServerRun | undefined>;
  listForSession(sessionId: string): Awaitable<ServerRun[]>;
  listInterrupted(): ServerRun[];
  listLost(): ServerRun[];
  listUnended(): ServerRun[];
  listOrphans(): OrphanedRun[];
}

/**
 * The approvals the server decides and shows: the store's `ApprovalStore`
 * (a broker runs ask, the reads and the decision the routes make), SQLite's
 * answers at once, PostgreSQL's with promises.
 *
 * @example
 * const pending = await approvals.countPending({ runId });
 */
export type ServerApprovals = ApprovalStore;

/**
 * Per-principal limits, counted in one process (`PrincipalLimits`) or in
 * the database every node shares. Each method throws the 429 `HttpError`
 * when the principal is over its limit.
 *
 * @example
 * const release = await limits.openStream(principal);
 */
export interface ServerLimits {
  /** Takes one of the principal's stream slots; the returned function gives it back. */
  openStream(principal: Principal): Awaitable<() => void>;
  createSession(principal: Principal): Awaitable<void>;
  sendMessage(principal: Principal): Awaitable<void>;
}
