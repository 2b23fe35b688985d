import type Database from 'better-sqlite3';
import { isStoreBusy } from '../../util/retry-while-busy.js';
import type { OrphanedRun, RunFailure, ServerRun, ServerRunStatus } from '../server-run.js';
import {
  interruptedServerRuns,
  lostServerRuns,
  orphanedRuns,
  unendedServerRuns,
} from '../server-runs/server-run-statements.js';
import { SqlServerRuns, type StatusChange } from '../server-runs/sql-server-runs.js';
import { toLocale } from '../session-rows.js';
import { rows } from '../sql/sql-program.js';
import { SqlitePort } from '../sql/sqlite-port.js';

export type { OrphanedRun, ServerRun, ServerRunStatus } from '../server-run.js';

/** Pauses between tries of a status write that found the database locked. */
const firstRetryMs = 20;
const longestRetryMs = 1000;

/** A session left running a run with no record, as `orphanedRuns` reads it. */
interface OrphanRow {
  session_id: string;
  active_run_id: string;
  tenant_id: string;
  user_id: string;
  message_count: number;
  run_locale: string | null;
  first_position: number | null;
}

/**
 * The server's runs, in arbiter's SQLite store (table `server_runs`): the
 * runs of `SqlServerRuns`, answered at once. A row is written in the same
 * transaction that marks the session's run active (`insert` inside
 * `SessionStore.beginRun`'s `inTransaction`), so a refused request leaves
 * nothing behind and a crash cannot leave a session running a run the
 * server does not know; the `list…` reads are what start-up recovery needs.
 *
 * `setStatus` never blocks on a locked database: when another connection
 * holds the write lock, the status is kept in memory (and shown by `find`)
 * and written once the lock is released.
 *
 * @example
 * const runs = new ServerRuns({ database: store.database });
 * runs.find(runId)?.status; // 'awaiting_approval'
 */
export class ServerRuns extends SqlServerRuns<'sync'> {
  readonly #onError: (error: unknown) => void;
  /** Statuses not yet written because the database was locked; written as soon as it is free. */
  readonly #pending = new Map<string, StatusChange>();
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #retryDelayMs = 0;

  constructor({
    database,
    now = Date.now,
    onError = () => {},
  }: {
    database: Database.Database;
    now?: () => number;
    /** Told of a status write that failed for another reason than a locked database. */
    onError?: (error: unknown) => void;
  }) {
    super({ port: new SqlitePort(database), now });
    this.#onError = onError;
  }

  /**
   * Records where the run stands, with why it failed when it did (a status
   * other than `error` clears the failure). Written at once, or, while
   * another connection holds the database's write lock, as soon as it lets go.
   */
  override setStatus(runId: string, status: ServerRunStatus, failure?: RunFailure): void {
    this.#pending.set(runId, this.statusChange(status, failure));
    if (this.#retryTimer === undefined) this.#writePending();
  }

  /**
   * Writes the statuses still waiting for the database, now; throws the
   * busy error when it is still locked (`retryWhileBusy` can wait for it).
   */
  flush(): void {
    clearTimeout(this.#retryTimer);
    const busy = this.#writePending({ retry: false });
    if (busy !== undefined) throw busy;
  }

  override find(runId: string): ServerRun | undefined {
    const run = super.find(runId);
    return run === undefined ? undefined : this.#shown(run);
  }

  /** The session's runs, oldest first. */
  override listForSession(sessionId: string): ServerRun[] {
    return super.listForSession(sessionId).map((run) => this.#shown(run));
  }

  /** Runs a previous process left `running` in the middle, still their session's active run: to resume. */
  listInterrupted(): ServerRun[] {
    return this.list(interruptedServerRuns).map((run) => this.#shown(run));
  }

  /**
   * Runs left `running` whose session has already left them (the process
   * stopped after the session's run ended, before its status was written).
   */
  listLost(): ServerRun[] {
    return this.list(lostServerRuns).map((run) => this.#shown(run));
  }

  /** Runs the server saw end while their session still has them running (it stopped in between). */
  listUnended(): ServerRun[] {
    return this.list(unendedServerRuns).map((run) => this.#shown(run));
  }

  /** Sessions of a tenant's user running a run the server has no record of (left by an older server). */
  listOrphans(): OrphanedRun[] {
    return this.port.run(rows<OrphanRow>(orphanedRuns)).map((row) => ({
      runId: row.active_run_id,
      sessionId: row.session_id,
      tenantId: row.tenant_id,
      userId: row.user_id,
      messageOffset: row.first_position ?? row.message_count,
      locale: toLocale(row.run_locale),
    }));
  }

  /** Writes what is pending, in order; returns the busy error that stopped it, if one did. */
  #writePending({ retry = true }: { retry?: boolean } = {}): unknown {
    this.#retryTimer = undefined;
    for (const [runId, change] of this.#pending) {
      try {
        this.writeStatus(runId, change);
      } catch (error) {
        if (isStoreBusy(error)) {
          if (retry) this.#scheduleRetry();
          return error;
        }
        this.#onError(error);
      }
      this.#pending.delete(runId);
    }
    this.#retryDelayMs = 0;
    return undefined;
  }

  #scheduleRetry(): void {
    this.#retryDelayMs = Math.min(longestRetryMs, Math.max(firstRetryMs, this.#retryDelayMs * 2));
    this.#retryTimer = setTimeout(() => this.#writePending(), this.#retryDelayMs);
    this.#retryTimer.unref();
  }

  /** The run as recorded, with the status still waiting to be written, if one is. */
  #shown(run: ServerRun): ServerRun {
    const pending = this.#pending.get(run.runId);
    return pending === undefined
      ? run
      : { ...run, status: pending.status, failure: pending.failure, updatedAt: pending.updatedAt };
  }
}
