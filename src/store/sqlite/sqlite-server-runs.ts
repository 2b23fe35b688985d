import type Database from 'better-sqlite3';
import { isStoreBusy } from '../../util/retry-while-busy.js';
import {
  failureColumn,
  keptFailure,
  type NewServerRun,
  type OrphanedRun,
  type RunFailure,
  recordedServerRun,
  type ServerRun,
  type ServerRunRow,
  type ServerRunStatus,
  toServerRun,
} from '../server-run.js';
import { toLocale } from '../session-rows.js';
import { type PreparedStatements, preparedStatements } from './prepared-statements.js';

export type { OrphanedRun, ServerRun, ServerRunStatus } from '../server-run.js';

/** A status not yet written because the database was locked; written as soon as it is free. */
interface PendingStatus {
  readonly status: ServerRunStatus;
  readonly failure: RunFailure | undefined;
  readonly updatedAt: number;
}

/** The SQL of each statement, prepared once per connection (`preparedStatements`). */
const sql = {
  insert: `INSERT INTO server_runs (run_id, session_id, tenant_id, principal, locale, status, message_offset, started_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?)`,
  setStatus: 'UPDATE server_runs SET status = ?, failure = ?, updated_at = ? WHERE run_id = ?',
  find: 'SELECT * FROM server_runs WHERE run_id = ?',
  forSession: 'SELECT * FROM server_runs WHERE session_id = ? ORDER BY started_at, rowid',
  interrupted: `SELECT r.* FROM server_runs r JOIN sessions s ON s.session_id = r.session_id AND s.active_run_id = r.run_id
       WHERE r.status = 'running'`,
  lost: `SELECT r.* FROM server_runs r LEFT JOIN sessions s ON s.session_id = r.session_id
       WHERE r.status = 'running' AND (s.active_run_id IS NULL OR s.active_run_id <> r.run_id)`,
  unended: `SELECT r.* FROM server_runs r JOIN sessions s ON s.session_id = r.session_id AND s.active_run_id = r.run_id
       WHERE s.status = 'running' AND r.status <> 'running'`,
  orphans: `SELECT s.session_id, s.active_run_id, s.tenant_id, s.user_id, s.message_count, s.run_locale,
         (SELECT MIN(m.position) FROM session_messages m
          WHERE m.session_id = s.session_id AND m.run_id = s.active_run_id) AS first_position
       FROM sessions s LEFT JOIN server_runs r ON r.run_id = s.active_run_id
       WHERE s.active_run_id IS NOT NULL AND s.status = 'running' AND r.run_id IS NULL
         AND s.tenant_id IS NOT NULL AND s.user_id IS NOT NULL`,
} as const;

/** Pauses between tries of a status write that found the database locked. */
const firstRetryMs = 20;
const longestRetryMs = 1000;

/**
 * The server's runs, in arbiter's SQLite store (table `server_runs`). A
 * row is written in the same transaction that marks the session's run
 * active (`insert` inside `SessionStore.beginRun`'s `inTransaction`), so a
 * refused request leaves nothing behind and a crash cannot leave a session
 * running a run the server does not know.
 *
 * `setStatus` never blocks on a locked database: when another connection
 * holds the write lock, the status is kept in memory (and shown by `find`)
 * and written once the lock is released.
 *
 * @example
 * const runs = new ServerRuns({ database: store.database });
 * runs.find(runId)?.status; // 'awaiting_approval'
 */
export class ServerRuns {
  readonly #now: () => number;
  readonly #onError: (error: unknown) => void;
  readonly #statement: PreparedStatements;
  readonly #pending = new Map<string, PendingStatus>();
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
    this.#now = now;
    this.#onError = onError;
    this.#statement = preparedStatements(database);
  }

  insert(run: NewServerRun): ServerRun {
    const now = this.#now();
    this.#statement(sql.insert).run(
      run.runId,
      run.sessionId,
      run.tenantId,
      JSON.stringify(run.principal),
      run.locale,
      run.messageOffset,
      now,
      now,
    );
    return recordedServerRun(run, now);
  }

  /**
   * Records where the run stands, with why it failed when it did (a status
   * other than `error` clears the failure). Written at once, or, while
   * another connection holds the database's write lock, as soon as it lets go.
   */
  setStatus(runId: string, status: ServerRunStatus, failure?: RunFailure): void {
    this.#pending.set(runId, { status, failure: keptFailure(status, failure), updatedAt: this.#now() });
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

  find(runId: string): ServerRun | undefined {
    const row = this.#statement(sql.find).get(runId) as ServerRunRow | undefined;
    return row === undefined ? undefined : this.#toServerRun(row);
  }

  /** The session's runs, oldest first. */
  listForSession(sessionId: string): ServerRun[] {
    return (this.#statement(sql.forSession).all(sessionId) as ServerRunRow[]).map((row) => this.#toServerRun(row));
  }

  /** Runs a previous process left `running` in the middle, still their session's active run: to resume. */
  listInterrupted(): ServerRun[] {
    return (this.#statement(sql.interrupted).all() as ServerRunRow[]).map((row) => this.#toServerRun(row));
  }

  /**
   * Runs left `running` whose session has already left them (the process
   * stopped after the session's run ended, before its status was written).
   */
  listLost(): ServerRun[] {
    return (this.#statement(sql.lost).all() as ServerRunRow[]).map((row) => this.#toServerRun(row));
  }

  /** Runs the server saw end while their session still has them running (it stopped in between). */
  listUnended(): ServerRun[] {
    return (this.#statement(sql.unended).all() as ServerRunRow[]).map((row) => this.#toServerRun(row));
  }

  /** Sessions of a tenant's user running a run the server has no record of (left by an older server). */
  listOrphans(): OrphanedRun[] {
    const rows = this.#statement(sql.orphans).all() as {
      session_id: string;
      active_run_id: string;
      tenant_id: string;
      user_id: string;
      message_count: number;
      run_locale: string | null;
      first_position: number | null;
    }[];
    return rows.map((row) => ({
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
        this.#statement(sql.setStatus).run(change.status, failureColumn(change.failure), change.updatedAt, runId);
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

  #toServerRun(row: ServerRunRow): ServerRun {
    const run = toServerRun(row);
    const pending = this.#pending.get(run.runId);
    return pending === undefined
      ? run
      : { ...run, status: pending.status, failure: pending.failure, updatedAt: pending.updatedAt };
  }
}
