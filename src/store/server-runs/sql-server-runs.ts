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
import type { Answer, SqlMode, SqlPort } from '../sql/sql-port.js';
import { rows, run, type SqlProgram, type SqlStatement, type SqlValue } from '../sql/sql-program.js';
import { findServerRun, insertServerRun, serverRunsOfSession, setServerRunStatus } from './server-run-statements.js';

/** The node that executes a run it records, and for how long it holds the run before another may take it (PostgreSQL). */
export interface ServerRunLease {
  readonly owner: string;
  readonly leaseMs: number;
}

/**
 * The server's runs (table `server_runs`) on either dialect: what both
 * backends do with them, written once — record a run, write where it
 * stands, find it, list a session's runs. It answers as its port does: at
 * once on SQLite (`ServerRuns`, which also keeps a status the locked
 * database could not take yet and reads what start-up recovery needs), with
 * promises on PostgreSQL (`PostgresServerRuns`, which adds the leases that
 * say which node executes each run).
 *
 * @example
 * const runs = new SqlServerRuns({ port: new SqlitePort(database) });
 * runs.insert({ runId, sessionId, tenantId, principal, locale: 'en', messageOffset: 0 });
 * runs.find(runId)?.status; // 'running'
 */
export class SqlServerRuns<Mode extends SqlMode> {
  protected readonly port: SqlPort<Mode>;
  protected readonly now: () => number;

  constructor({ port, now = Date.now }: { port: SqlPort<Mode>; now?: () => number }) {
    this.port = port;
    this.now = now;
  }

  /**
   * Records a run, running from now. On PostgreSQL `lease` is the node that
   * accepted it, holding it for `leaseMs` (none: any node may claim it),
   * and a run already recorded is left as it is; SQLite has no leases.
   */
  insert(run: NewServerRun, lease?: ServerRunLease): Answer<Mode, ServerRun> {
    return this.port.run(insertRun(run, this.now(), lease));
  }

  /** The run as recorded; undefined when there is no record of it. */
  /** `insert` as a program, for a caller's transaction (the session's begin, with the run's record). */
  insertWithin(run: NewServerRun, lease?: ServerRunLease): SqlProgram<ServerRun> {
    return insertRun(run, this.now(), lease);
  }

  find(runId: string): Answer<Mode, ServerRun | undefined> {
    return this.port.run(findRun(runId));
  }

  /** The session's runs, oldest first. */
  listForSession(sessionId: string): Answer<Mode, ServerRun[]> {
    return this.list(serverRunsOfSession, [sessionId]);
  }

  /** Records where the run stands (a status other than `error` clears the failure); a lease is left as it is. */
  setStatus(runId: string, status: ServerRunStatus, failure?: RunFailure): Answer<Mode, void> {
    return this.writeStatus(runId, this.statusChange(status, failure));
  }

  /** A status decided now, with the failure it keeps (only `error` keeps one). */
  protected statusChange(status: ServerRunStatus, failure: RunFailure | undefined): StatusChange {
    return { status, failure: keptFailure(status, failure), updatedAt: this.now() };
  }

  /** Writes a status as of `updatedAt` (the failure already the one the status keeps). */
  protected writeStatus(runId: string, change: StatusChange): Answer<Mode, void> {
    return this.port.run(writeStatus(runId, change));
  }

  /** The runs a statement selects (`SELECT * FROM server_runs …`). */
  protected list(statement: SqlStatement, values: readonly SqlValue[] = []): Answer<Mode, ServerRun[]> {
    return this.port.run(listRuns(statement, values));
  }
}

/** A status to write, as of when it was decided. */
export interface StatusChange {
  readonly status: ServerRunStatus;
  readonly failure: RunFailure | undefined;
  readonly updatedAt: number;
}

function* insertRun(serverRun: NewServerRun, now: number, lease: ServerRunLease | undefined): SqlProgram<ServerRun> {
  yield* run(insertServerRun, [
    serverRun.runId,
    serverRun.sessionId,
    serverRun.tenantId,
    JSON.stringify(serverRun.principal),
    serverRun.locale,
    serverRun.messageOffset,
    now,
    lease?.owner ?? null,
    lease?.leaseMs ?? null,
  ]);
  return recordedServerRun(serverRun, now);
}

function* findRun(runId: string): SqlProgram<ServerRun | undefined> {
  const [row] = yield* rows<ServerRunRow>(findServerRun, [runId]);
  return row === undefined ? undefined : toServerRun(row);
}

function* listRuns(statement: SqlStatement, values: readonly SqlValue[]): SqlProgram<ServerRun[]> {
  return (yield* rows<ServerRunRow>(statement, values)).map(toServerRun);
}

function* writeStatus(runId: string, { status, failure, updatedAt }: StatusChange): SqlProgram<void> {
  yield* run(setServerRunStatus, [runId, status, failureColumn(failure), updatedAt]);
}
