import type Database from 'better-sqlite3';
import type { Principal } from '../gate/principal.js';
import type { StopReason } from '../loop/stop-reason.js';
import type { Locale } from '../tools/tool-types.js';

/** Where a run stands: `running`, or the reason its latest stretch stopped. */
export type ServerRunStatus = 'running' | StopReason;

/** What the server needs to know about a run beyond the session: whose it is, its language, where it stands. */
export interface ServerRun {
  readonly runId: string;
  readonly sessionId: string;
  readonly tenantId: string;
  /** The session owner's principal; a resumed run acts for them, never for the approver. */
  readonly principal: Principal;
  readonly locale: Locale;
  readonly status: ServerRunStatus;
  /** How many messages the session held before this run's user message. */
  readonly messageOffset: number;
  readonly startedAt: number;
  readonly updatedAt: number;
}

interface ServerRunRow {
  run_id: string;
  session_id: string;
  tenant_id: string;
  principal: string;
  locale: Locale;
  status: ServerRunStatus;
  message_offset: number;
  started_at: number;
  updated_at: number;
}

/**
 * The server's runs, in arbiter's SQLite store (table `server_runs`). A
 * row is written when the run has started (its `run:start`), never before,
 * so a refused request leaves nothing behind.
 *
 * @example
 * const runs = new ServerRuns({ database: store.database });
 * runs.find(runId)?.status; // 'awaiting_approval'
 */
export class ServerRuns {
  readonly #now: () => number;
  readonly #insert: Database.Statement;
  readonly #setStatus: Database.Statement;
  readonly #find: Database.Statement;
  readonly #forSession: Database.Statement;
  readonly #interrupted: Database.Statement;

  constructor({ database, now = Date.now }: { database: Database.Database; now?: () => number }) {
    this.#now = now;
    this.#insert = database.prepare(
      `INSERT INTO server_runs (run_id, session_id, tenant_id, principal, locale, status, message_offset, started_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?)`,
    );
    this.#setStatus = database.prepare('UPDATE server_runs SET status = ?, updated_at = ? WHERE run_id = ?');
    this.#find = database.prepare('SELECT * FROM server_runs WHERE run_id = ?');
    this.#forSession = database.prepare('SELECT * FROM server_runs WHERE session_id = ? ORDER BY started_at, rowid');
    this.#interrupted = database.prepare("SELECT * FROM server_runs WHERE status = 'running'");
  }

  insert(run: Omit<ServerRun, 'startedAt' | 'updatedAt' | 'status'>): ServerRun {
    const now = this.#now();
    this.#insert.run(
      run.runId,
      run.sessionId,
      run.tenantId,
      JSON.stringify(run.principal),
      run.locale,
      run.messageOffset,
      now,
      now,
    );
    return { ...run, status: 'running', startedAt: now, updatedAt: now };
  }

  setStatus(runId: string, status: ServerRunStatus): void {
    this.#setStatus.run(status, this.#now(), runId);
  }

  find(runId: string): ServerRun | undefined {
    const row = this.#find.get(runId) as ServerRunRow | undefined;
    return row === undefined ? undefined : fromRow(row);
  }

  /** The session's runs, oldest first. */
  listForSession(sessionId: string): ServerRun[] {
    return (this.#forSession.all(sessionId) as ServerRunRow[]).map(fromRow);
  }

  /** Runs a previous process left `running`: it stopped mid-run. */
  listInterrupted(): ServerRun[] {
    return (this.#interrupted.all() as ServerRunRow[]).map(fromRow);
  }
}

function fromRow(row: ServerRunRow): ServerRun {
  return {
    runId: row.run_id,
    sessionId: row.session_id,
    tenantId: row.tenant_id,
    principal: JSON.parse(row.principal) as Principal,
    locale: row.locale,
    status: row.status,
    messageOffset: row.message_offset,
    startedAt: row.started_at,
    updatedAt: row.updated_at,
  };
}
