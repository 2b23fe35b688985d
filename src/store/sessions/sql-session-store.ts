import type { RunJournal } from '../../core/run-journal.js';
import { timeOrderedId } from '../../util/time-ordered-id.js';
import { newSessionValues, parseSlots, type SessionRow, toSession, toSummary } from '../session-rows.js';
import type {
  AppendRequest,
  BeginRunRequest,
  CreateSessionOptions,
  EndRunRequest,
  ForkRequest,
  JournalRequest,
  ListSessionsOptions,
  PurgeRequest,
  Session,
  SessionStore,
  SessionSummary,
  SetSlotsRequest,
} from '../session-store.js';
import type { SqlMode, SqlPort } from '../sql/sql-port.js';
import { rows, run, type SqlProgram } from '../sql/sql-program.js';
import { sessionJournal } from './session-journal.js';
import { endRunSteps, type LockedSessionRow, loadSession } from './session-programs.js';
import { sessionStatements as statements } from './session-statements.js';
import { portTransactions, type SessionTransactions } from './session-transactions.js';
import { appendMessages, beginRunSteps, forkSession, purgeSessions, versionedWrite } from './session-write-programs.js';
import { checkAppend, mergeSlots, purgeCutoff } from './session-writes.js';

/** What `SqlSessionStore` is built from. */
export interface SqlSessionStoreOptions<Mode extends SqlMode> {
  /** The database, through the dialect port. */
  port: SqlPort<Mode>;
  /** The clock of every timestamp the store writes. Default `Date.now`. */
  now?: (() => number) | undefined;
  /** How the dialect runs a write; default the port's own transactions (`portTransactions`). */
  transactions?: SessionTransactions | undefined;
}

/**
 * Sessions in a SQL database, one class for SQLite and PostgreSQL: each
 * operation is a program of statements (`SqlProgram`) the dialect port
 * runs, synchronously on SQLite, a round trip per step on PostgreSQL.
 *
 * Every write is one transaction that first reads the session's row
 * locked (PostgreSQL `FOR UPDATE`; SQLite's `BEGIN IMMEDIATE` keeps every
 * other writer out already):
 *
 * - with `expectedVersion`, the write is refused with `SessionConflictError`
 *   when the row has moved on (optimistic concurrency);
 * - without it, the write applies to the row as locked, so concurrent
 *   writers queue on the lock instead of retrying: none overwrites another,
 *   each adds one version;
 * - a journal's step commit is an update fenced on its run still being the
 *   active one and the messages being where it left them (`commitStep`).
 *
 * `beginRun`'s `inTransaction` runs inside the begin's transaction, after
 * the row is locked and marked; it is synchronous and must not do I/O on
 * another connection (it would wait outside the transaction it is part of).
 *
 * A dialect's subclass (`SqliteSessionStore`, `PostgresSessionStore`)
 * hands in its port and how it runs a transaction (`SessionTransactions`).
 *
 * @example
 * const sessions = new SqlSessionStore({ port: new PostgresPort(database) }); // what PostgresSessionStore is
 * const session = await sessions.create({ principal, ttlMs: 7 * 86_400_000 });
 * await sessions.append({ sessionId: session.id, messages: [{ role: 'user', content: 'Hi' }] });
 */
export class SqlSessionStore<Mode extends SqlMode> implements SessionStore {
  readonly #port: SqlPort<Mode>;
  readonly #now: () => number;
  readonly #transactions: SessionTransactions;

  constructor({ port, now = Date.now, transactions = portTransactions(port) }: SqlSessionStoreOptions<Mode>) {
    this.#port = port;
    this.#now = now;
    this.#transactions = transactions;
  }

  async create({
    sessionId = timeOrderedId(),
    principal,
    ttlMs,
    slots = {},
  }: CreateSessionOptions = {}): Promise<Session> {
    const row = newSessionValues({ sessionId, principal, ttlMs, slots, now: this.#now() });
    const values = [row.sessionId, row.tenantId, row.userId, row.slots, row.now, row.expiresAt, row.ttlMs];
    // The row as inserted, defaults included: a new session has no messages, so it is not read again.
    const [created] = await this.#transactions.write({
      operation: 'create',
      ofRun: false,
      oneStatement: true,
      work: () => rows<SessionRow>(statements.create, values),
    });
    return toSession(created as SessionRow, []);
  }

  load(sessionId: string): Promise<Session | undefined> {
    return this.#read(loadSession(sessionId));
  }

  async list({ limit = 100, tenantId, userId }: ListSessionsOptions = {}): Promise<readonly SessionSummary[]> {
    const found = await this.#read(rows<SessionRow>(statements.list, [tenantId ?? null, userId ?? null, limit]));
    return found.map(toSummary);
  }

  async append({ sessionId, messages, expectedVersion, runId }: AppendRequest): Promise<{ version: number }> {
    const now = this.#now;
    return this.#versioned('append', sessionId, expectedVersion, (row) => {
      checkAppend({ sessionId, row, runId });
      return appendMessages({ sessionId, messages, from: row.message_count, runId, now: now() });
    });
  }

  async setSlots({
    sessionId,
    slots,
    expectedVersion,
  }: SetSlotsRequest): Promise<{ version: number; slots: Readonly<Record<string, unknown>> }> {
    const now = this.#now;
    let merged: Record<string, unknown> = {};
    const { version } = await this.#versioned('setSlots', sessionId, expectedVersion, (row) => {
      merged = mergeSlots(row, slots);
      return run(statements.setSlots, [now(), JSON.stringify(merged), sessionId]);
    });
    return { version, slots: merged };
  }

  async getSlots(sessionId: string): Promise<Readonly<Record<string, unknown>> | undefined> {
    const [row] = await this.#read(rows<SessionRow>(statements.row, [sessionId]));
    return row === undefined ? undefined : parseSlots(row);
  }

  async fork({ sessionId, atMessage, newSessionId = timeOrderedId(), ttlMs }: ForkRequest): Promise<Session> {
    const now = this.#now;
    await this.#transactions.write({
      operation: 'fork',
      ofRun: false,
      work: () => forkSession({ sessionId, atMessage, newSessionId, ttlMs, now }),
    });
    return (await this.load(newSessionId)) as Session;
  }

  purge({ olderThanDays, expired = false }: PurgeRequest): Promise<{ sessionIds: readonly string[] }> {
    const now = this.#now();
    const before = purgeCutoff({ olderThanDays, now });
    return this.#transactions.write({
      operation: 'purge',
      ofRun: false,
      work: () => purgeSessions({ before, expired, now }),
    });
  }

  beginRun({
    sessionId,
    runId,
    messages = [],
    locale,
    model,
    expectedVersion,
    inTransaction,
  }: BeginRunRequest): Promise<{ version: number }> {
    const now = this.#now;
    return this.#versioned('beginRun', sessionId, expectedVersion, (row) =>
      beginRunSteps({ sessionId, runId, messages, locale, model, row, now, inTransaction }),
    );
  }

  async endRun(request: EndRunRequest): Promise<void> {
    const ending = { ...request, now: this.#now() };
    await this.#transactions.write({
      operation: 'endRun',
      ofRun: true,
      // PostgreSQL ends a run in one statement, sent alone.
      oneStatement: this.#port.dialect === 'postgres',
      work: () => endRunSteps(ending),
    });
  }

  journal({ sessionId, expectedMessageCount, newRunId, endRunWithAnswer }: JournalRequest): RunJournal {
    return sessionJournal({
      port: this.#port,
      transactions: this.#transactions,
      now: this.#now,
      sessionId,
      expectedMessageCount,
      newRunId,
      endRunWithAnswer,
    });
  }

  /** A read, once what waits for a transaction is written. */
  async #read<Result>(program: SqlProgram<Result>): Promise<Result> {
    this.#transactions.beforeRead();
    // A value on SQLite, a promise on PostgreSQL: awaited alike.
    return this.#port.run(program) as Result | Promise<Result>;
  }

  /**
   * One versioned write, in one transaction: reads the session's row
   * locked, refuses the write when `expectedVersion` is given and the row
   * is at another version, applies `change`. Answers the new version.
   */
  #versioned(
    operation: string,
    sessionId: string,
    expectedVersion: number | undefined,
    change: (row: LockedSessionRow) => SqlProgram<unknown>,
  ): Promise<{ version: number }> {
    return this.#transactions.write({
      operation,
      ofRun: false,
      work: () => versionedWrite({ sessionId, expectedVersion, change }),
    });
  }
}
