import type { RunJournal } from '../../core/run-journal.js';
import { timeOrderedId } from '../../util/time-ordered-id.js';
import {
  forkedSessionValues,
  newSessionValues,
  parseMessages,
  parseSlots,
  type SessionRow,
  toSession,
  toSummary,
} from '../session-rows.js';
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
import { dialect, isSqlProgram, rows, run, type SqlProgram } from '../sql/sql-program.js';
import { sessionJournal } from './session-journal.js';
import { existingRow, insertMessages, loadSession } from './session-programs.js';
import { sessionStatements as statements } from './session-statements.js';
import { portTransactions, type SessionTransactions } from './session-transactions.js';
import { begunRun, checkAppend, checkVersion, forkCut, mergeSlots, purgeCutoff } from './session-writes.js';

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
    return this.#versioned('append', sessionId, expectedVersion, function* (row) {
      checkAppend({ sessionId, row, runId });
      const at = now();
      yield* insertMessages({ sessionId, messages, from: row.message_count, runId, now: at });
      yield* run(statements.append, [at, messages.length, sessionId]);
    });
  }

  async setSlots({
    sessionId,
    slots,
    expectedVersion,
  }: SetSlotsRequest): Promise<{ version: number; slots: Readonly<Record<string, unknown>> }> {
    const now = this.#now;
    let merged: Record<string, unknown> = {};
    const { version } = await this.#versioned('setSlots', sessionId, expectedVersion, function* (row) {
      merged = mergeSlots(row, slots);
      yield* run(statements.setSlots, [now(), JSON.stringify(merged), sessionId]);
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
      *work() {
        const row = yield* existingRow(sessionId, statements.shareRow);
        const stored = yield* rows<{ message: string }>(statements.messages, [sessionId]);
        const cut = forkCut({ sessionId, messages: parseMessages(stored.map((entry) => entry.message)), atMessage });
        const fork = forkedSessionValues({ row, newSessionId, cut, ttlMs, now: now() });
        yield* run(statements.fork, [
          fork.sessionId,
          fork.tenantId,
          fork.userId,
          fork.slots,
          fork.cut,
          fork.forkedFrom,
          fork.now,
          fork.expiresAt,
          fork.ttlMs,
          fork.locale,
          fork.model,
        ]);
        yield* run(statements.forkMessages, [fork.sessionId, fork.now, sessionId, cut]);
      },
    });
    return (await this.load(newSessionId)) as Session;
  }

  purge({ olderThanDays, expired = false }: PurgeRequest): Promise<{ sessionIds: readonly string[] }> {
    const now = this.#now();
    const before = purgeCutoff({ olderThanDays, now });
    return this.#transactions.write({
      operation: 'purge',
      ofRun: false,
      *work() {
        const purgeable = yield* rows<{ session_id: string }>(statements.purgeable, [before, expired, now]);
        const ids = purgeable.map((row) => row.session_id);
        if (ids.length > 0) {
          // A list as each dialect binds one: a text array, or JSON for SQLite's `json_each`.
          const list = (yield* dialect()) === 'postgres' ? ids : JSON.stringify(ids);
          yield* run(statements.purgeToolResults, [list]);
          yield* run(statements.purgeMessages, [list]);
          yield* run(statements.purgeSessions, [list]);
        }
        return { sessionIds: ids };
      },
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
    return this.#versioned('beginRun', sessionId, expectedVersion, function* (row) {
      const begun = begunRun({ sessionId, runId, row });
      const at = now();
      if (begun.resumed) {
        yield* run(statements.resumeRun, [at, messages.length, sessionId]);
      } else {
        yield* run(statements.beginRun, [at, runId, locale ?? null, model ?? null, messages.length, sessionId]);
      }
      yield* insertMessages({ sessionId, messages, from: begun.messageOffset, runId, now: at });
      const more = inTransaction?.(begun);
      if (isSqlProgram(more)) yield* more;
    });
  }

  async endRun({ sessionId, runId, status, lastSeq }: EndRunRequest): Promise<void> {
    const values = [this.#now(), status, lastSeq, sessionId, runId];
    await this.#transactions.write({
      operation: 'endRun',
      ofRun: true,
      oneStatement: true,
      work: () => run(statements.endRun, values),
    });
  }

  journal({ sessionId, expectedMessageCount, newRunId }: JournalRequest): RunJournal {
    return sessionJournal({
      port: this.#port,
      transactions: this.#transactions,
      now: this.#now,
      sessionId,
      expectedMessageCount,
      newRunId,
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
    change: (row: SessionRow) => SqlProgram<void>,
  ): Promise<{ version: number }> {
    return this.#transactions.write({
      operation,
      ofRun: false,
      *work() {
        const row = yield* existingRow(sessionId, statements.lockRow);
        checkVersion({ sessionId, row, expectedVersion });
        yield* change(row);
        return { version: row.version + 1 };
      },
    });
  }
}
