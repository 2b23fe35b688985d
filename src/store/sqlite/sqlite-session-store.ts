import { setTimeout as sleep } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import type { ChatMessage } from '../../core/chat-message.js';
import type { RecordedToolResult, RunJournal, StepCommit } from '../../core/run-journal.js';
import { SessionNotFoundError } from '../../errors/session-not-found-error.js';
import { retryWhileBusy } from '../../util/retry-while-busy.js';
import { timeOrderedId } from '../../util/time-ordered-id.js';
import {
  forkedSessionValues,
  newSessionValues,
  parseMessages,
  parseSlots,
  type SessionRow,
  type ToolResultRow,
  toolResultValues,
  toRecordedToolResult,
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
import {
  begunRun,
  checkAppend,
  checkVersion,
  forkCut,
  isVersionConflict,
  mergeSlots,
  purgeCutoff,
  stepCommitConflict,
  stepCommitCounters,
} from '../session-writes.js';
import { type PendingWrites, pendingWrites } from './pending-writes.js';
import { type PreparedStatements, preparedStatements } from './prepared-statements.js';

/** Attempts of a write that found the session moved on between its read and its write. */
const maxConflictRetries = 50;

/**
 * What every write does to the session row besides its own change: one more
 * version, the time, and a TTL pushed forward.
 */
const touch =
  'version = version + 1, updated_at = @now, expires_at = CASE WHEN ttl_ms IS NULL THEN expires_at ELSE @now + ttl_ms END';
/**
 * What a step commit inside a run does to the session row: one more
 * version, and for a session with a TTL the TTL pushed forward. Not
 * `updated_at`: SQLite rewrites the entries of every index on a column a
 * statement sets, changed or not, and the step commit is the write a run
 * makes most, so `sessions_by_update` would add one page to every step's
 * commit (about one in seven of the pages it writes). The run moved
 * `updated_at` when it began, and moves it again when it ends or waits for
 * a person (`endRun`); in between the session is `running`.
 */
const touchStep = 'version = version + 1, expires_at = CASE WHEN ttl_ms IS NULL THEN expires_at ELSE @now + ttl_ms END';
/** The same for a session without a TTL: `expires_at` stays out of the SET list, for the same reason. */
const touchStepWithoutTtl = 'version = version + 1';

/**
 * A step commit's update of the session row, fenced on the run still being
 * its active run and its messages being where the journal expects them.
 * Anonymous parameters, bound from an array (built in `#commitStep`):
 * better-sqlite3 binds those in order, without looking each name up in an
 * object as it does for `@name` ones. The TTL's `?` (a session with one)
 * comes last in the SET list.
 */
const commitStepUpdate = (ttl: boolean) =>
  `UPDATE sessions SET message_count = message_count + ?,
     step_count = step_count + MAX(0, ? - run_steps),
     input_tokens = input_tokens + MAX(0, ? - run_input_tokens),
     output_tokens = output_tokens + MAX(0, ? - run_output_tokens),
     cost = cost + MAX(0, COALESCE(?, run_cost) - run_cost),
     run_steps = MAX(run_steps, ?),
     run_input_tokens = MAX(run_input_tokens, ?), run_output_tokens = MAX(run_output_tokens, ?),
     run_cached_tokens = MAX(run_cached_tokens, ?), run_cost = MAX(run_cost, COALESCE(?, run_cost)),
     run_last_seq = MAX(run_last_seq, COALESCE(?, run_last_seq)), ${ttl ? touchStep.replace('@now', '?') : touchStepWithoutTtl}
   WHERE session_id = ? AND active_run_id = ? AND (? IS NULL OR message_count = ?)`;
/**
 * By whether the session has a TTL, and whether the commit is fenced on a
 * message count: a fenced commit knows the count it leaves (the fence plus
 * its messages) and only needs to know that the row changed, so it goes
 * without `RETURNING` (which costs SQLite a temporary table per statement);
 * an unfenced one reads the count back.
 */
const commitStepSql = {
  ttl: { fenced: commitStepUpdate(true), unfenced: `${commitStepUpdate(true)} RETURNING message_count` },
  noTtl: { fenced: commitStepUpdate(false), unfenced: `${commitStepUpdate(false)} RETURNING message_count` },
} as const;

/** Messages one INSERT writes at most; a longer list takes several. */
const messagesPerInsert = 8;
/** `INSERT INTO session_messages … VALUES (…), (…)` for 1 to `messagesPerInsert` messages, by count - 1. */
const insertMessagesSql = Array.from(
  { length: messagesPerInsert },
  (_, index) =>
    `INSERT INTO session_messages (session_id, position, run_id, message, created_at) VALUES ${Array.from(
      { length: index + 1 },
      () => '(?, ?, ?, ?, ?)',
    ).join(', ')}`,
);

/**
 * Sessions in arbiter's SQLite store. Writes run in `BEGIN IMMEDIATE`
 * transactions and check the version they read inside them, so several
 * processes can share one file (WAL) without losing, duplicating or
 * reordering a message.
 *
 * A write that finds the database locked by another connection (after the
 * connection's own `busy_timeout`) is tried again asynchronously
 * (`retryWhileBusy`): for up to `busyWaitMs` for writes a caller waits on
 * (create, append, slots, fork, purge, beginRun), then `StoreBusyError`;
 * for up to `runBusyWaitMs` for the writes of a run in progress (its
 * journal and `endRun`), which nobody can repeat later.
 *
 * @example
 * const store = openSqliteStore({ path: '.arbiter/arbiter.db' });
 * const sessions = new SqliteSessionStore({ database: store.database });
 */
export class SqliteSessionStore implements SessionStore {
  readonly #now: () => number;
  readonly #busyWaitMs: number;
  readonly #runBusyWaitMs: number;
  readonly #statement: PreparedStatements;
  readonly #pending: PendingWrites;
  /**
   * The row and its messages read in one transaction (one snapshot). Wrapped
   * once: better-sqlite3 builds a transaction's function and its variants
   * each time `transaction()` is called.
   */
  readonly #readSession: Database.Transaction<(sessionId: string) => Session | undefined>;
  #conflictRetries = 0;

  constructor({
    database,
    now = Date.now,
    busyWaitMs = 2000,
    runBusyWaitMs = 60_000,
  }: {
    database: Database.Database;
    now?: () => number;
    /** How long a write a caller waits on keeps retrying while the database is locked. Default 2000. */
    busyWaitMs?: number;
    /** The same for a run's journal and `endRun`. Default 60 000. */
    runBusyWaitMs?: number;
  }) {
    this.#statement = preparedStatements(database);
    this.#pending = pendingWrites(database);
    this.#now = now;
    this.#busyWaitMs = busyWaitMs;
    this.#runBusyWaitMs = runBusyWaitMs;
    this.#readSession = database.transaction((sessionId: string): Session | undefined => {
      const row = this.#row(sessionId);
      return row === undefined ? undefined : toSession(row, this.#storedMessages(sessionId));
    });
  }

  /** How many writes found their session moved on and retried, since this store was opened. */
  get conflictRetries(): number {
    return this.#conflictRetries;
  }

  async create({
    sessionId = timeOrderedId(),
    principal,
    ttlMs,
    slots = {},
  }: CreateSessionOptions = {}): Promise<Session> {
    const row = newSessionValues({ sessionId, principal, ttlMs, slots, now: this.#now() });
    await this.#whenFree('create', () =>
      this.#pending.transaction(() =>
        this.#statement(
          `INSERT INTO sessions (session_id, tenant_id, user_id, slots, created_at, updated_at, expires_at, ttl_ms)
           VALUES (@sessionId, @tenantId, @userId, @slots, @now, @now, @expiresAt, @ttlMs)`,
        ).run(row),
      ),
    );
    return this.#loadNow(sessionId) as Session;
  }

  async load(sessionId: string): Promise<Session | undefined> {
    return this.#loadNow(sessionId);
  }

  async list({ limit = 100, tenantId, userId }: ListSessionsOptions = {}): Promise<readonly SessionSummary[]> {
    this.#pending.flush();
    const rows = this.#statement(
      `SELECT * FROM sessions WHERE (@tenantId IS NULL OR tenant_id = @tenantId) AND (@userId IS NULL OR user_id = @userId)
       ORDER BY updated_at DESC, session_id LIMIT @limit`,
    ).all({ tenantId: tenantId ?? null, userId: userId ?? null, limit }) as SessionRow[];
    return rows.map(toSummary);
  }

  async append({ sessionId, messages, expectedVersion, runId }: AppendRequest): Promise<{ version: number }> {
    return this.#withRetries('append', expectedVersion, (base) =>
      this.#write(sessionId, base, (row) => {
        checkAppend({ sessionId, row, runId });
        this.#insertMessages({ sessionId, messages, from: row.message_count, runId });
        this.#statement(
          `UPDATE sessions SET message_count = message_count + @count, ${touch} WHERE session_id = @id`,
        ).run({ count: messages.length, now: this.#now(), id: sessionId });
      }),
    );
  }

  async setSlots({
    sessionId,
    slots,
    expectedVersion,
  }: SetSlotsRequest): Promise<{ version: number; slots: Readonly<Record<string, unknown>> }> {
    let merged: Record<string, unknown> = {};
    const { version } = await this.#withRetries('setSlots', expectedVersion, (base) =>
      this.#write(sessionId, base, (row) => {
        merged = mergeSlots(row, slots);
        this.#statement(`UPDATE sessions SET slots = @slots, ${touch} WHERE session_id = @id`).run({
          slots: JSON.stringify(merged),
          now: this.#now(),
          id: sessionId,
        });
      }),
    );
    return { version, slots: merged };
  }

  async getSlots(sessionId: string): Promise<Readonly<Record<string, unknown>> | undefined> {
    this.#pending.flush();
    const row = this.#row(sessionId);
    return row === undefined ? undefined : parseSlots(row);
  }

  async fork({ sessionId, atMessage, newSessionId = timeOrderedId(), ttlMs }: ForkRequest): Promise<Session> {
    await this.#whenFree('fork', () =>
      this.#pending.transaction(() => {
        const row = this.#existing(sessionId);
        const cut = forkCut({ sessionId, messages: parseMessages(this.#storedMessages(sessionId)), atMessage });
        const fork = forkedSessionValues({ row, newSessionId, cut, ttlMs, now: this.#now() });
        this.#statement(
          `INSERT INTO sessions (session_id, tenant_id, user_id, slots, message_count, forked_from, forked_at,
             created_at, updated_at, expires_at, ttl_ms, run_locale, run_model)
           VALUES (@sessionId, @tenantId, @userId, @slots, @cut, @forkedFrom, @cut, @now, @now, @expiresAt, @ttlMs,
             @locale, @model)`,
        ).run(fork);
        this.#statement(
          `INSERT INTO session_messages (session_id, position, run_id, message, created_at)
           SELECT @sessionId, position, NULL, message, @now FROM session_messages
           WHERE session_id = @forkedFrom AND position < @cut ORDER BY position`,
        ).run({ sessionId: fork.sessionId, forkedFrom: fork.forkedFrom, cut, now: fork.now });
      }),
    );
    return this.#loadNow(newSessionId) as Session;
  }

  async purge({ olderThanDays, expired = false }: PurgeRequest): Promise<{ sessionIds: readonly string[] }> {
    const now = this.#now();
    const before = purgeCutoff({ olderThanDays, now });
    return this.#whenFree('purge', () =>
      this.#pending.transaction(() => {
        const ids = (
          this.#statement(
            `SELECT session_id FROM sessions
             WHERE (@before IS NOT NULL AND updated_at < @before)
                OR (@expired = 1 AND expires_at IS NOT NULL AND expires_at <= @now)
             ORDER BY session_id`,
          ).all({ before, expired: expired ? 1 : 0, now }) as { session_id: string }[]
        ).map((row) => row.session_id);
        for (const id of ids) {
          this.#statement('DELETE FROM tool_results WHERE session_id = ?').run(id);
          this.#statement('DELETE FROM session_messages WHERE session_id = ?').run(id);
          this.#statement('DELETE FROM sessions WHERE session_id = ?').run(id);
        }
        return { sessionIds: ids };
      }),
    );
  }

  async beginRun({
    sessionId,
    runId,
    messages = [],
    locale,
    model,
    expectedVersion,
    inTransaction,
  }: BeginRunRequest): Promise<{ version: number }> {
    return this.#withRetries('beginRun', expectedVersion, (base) =>
      this.#write(sessionId, base, (row) => {
        const begun = begunRun({ sessionId, runId, row });
        const now = this.#now();
        if (begun.resumed) {
          this.#statement(
            `UPDATE sessions SET status = 'running', message_count = message_count + @count, ${touch} WHERE session_id = @id`,
          ).run({ now, id: sessionId, count: messages.length });
        } else {
          this.#statement(
            `UPDATE sessions SET status = 'running', active_run_id = @runId, run_steps = 0, run_input_tokens = 0,
               run_output_tokens = 0, run_cached_tokens = 0, run_last_seq = 0, run_cost = 0,
               run_locale = @locale, run_model = @model, message_count = message_count + @count, ${touch}
             WHERE session_id = @id`,
          ).run({ runId, now, id: sessionId, locale: locale ?? null, model: model ?? null, count: messages.length });
        }
        this.#insertMessages({ sessionId, messages, from: begun.messageOffset, runId });
        inTransaction?.(begun);
      }),
    );
  }

  async endRun({ sessionId, runId, status, lastSeq }: EndRunRequest): Promise<void> {
    await this.#whenFree(
      'endRun',
      () =>
        this.#pending.transaction(() =>
          this.#statement(
            `UPDATE sessions SET status = @status,
               active_run_id = CASE WHEN @status = 'idle' THEN NULL ELSE active_run_id END,
               run_last_seq = MAX(run_last_seq, @lastSeq), ${touch}
             WHERE session_id = @id AND active_run_id = @runId`,
          ).run({ status, lastSeq, now: this.#now(), id: sessionId, runId }),
        ),
      this.#runBusyWaitMs,
    );
  }

  journal({ sessionId, expectedMessageCount }: JournalRequest): RunJournal {
    const findAll = this.#statement('SELECT tool_call_id, tool, content, outcome FROM tool_results WHERE run_id = ?');
    const record = this.#statement(
      `INSERT OR IGNORE INTO tool_results (run_id, tool_call_id, session_id, tool, content, outcome, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    const insert = (runId: string, result: RecordedToolResult) =>
      record.run(toolResultValues({ runId, sessionId, result, now: this.#now() }));
    /** Rerunnable results: this journal answers with them; they are not stored (see `RecordedToolResult.rerunnable`). */
    const waiting = new Map<string, RecordedToolResult>();
    /**
     * The stored results of the run this journal answers for, by tool call
     * id: read with one query when the run first asks, then kept up to date
     * by `recordToolResult`, instead of one query per call. The run is this
     * process's alone while it is active in the session, so nothing else
     * records results for it meanwhile.
     */
    let stored: { readonly runId: string; readonly results: Map<string, RecordedToolResult> } | undefined;
    const storedResults = (runId: string): Map<string, RecordedToolResult> => {
      if (stored?.runId === runId) return stored.results;
      const results = new Map<string, RecordedToolResult>();
      for (const row of findAll.all(runId) as ToolResultRow[]) results.set(row.tool_call_id, toRecordedToolResult(row));
      stored = { runId, results };
      return results;
    };
    // Where the next commit must land: as committed, and inside the transaction running now.
    let expected = expectedMessageCount;
    let staged: number | undefined;
    // A session's TTL is set when it is created or forked, never by a run.
    const ttl = this.#statement('SELECT ttl_ms IS NOT NULL FROM sessions WHERE session_id = ?')
      .pluck()
      .get(sessionId) as number | undefined;
    const hasTtl = ttl !== 0;
    const commitNow = (commit: StepCommit) => {
      staged = this.#commitStep({ sessionId, commit, expected: staged ?? expected, hasTtl });
      return staged;
    };
    /** The rerunnable commit queued for the connection's next transaction and not yet taken by one. */
    let queued: QueuedCommit | undefined;
    /** A waiting write that failed: the run's next journal call throws it. */
    let failure: unknown;
    const throwFailure = () => {
      if (failure === undefined) return;
      const error = failure;
      failure = undefined;
      throw error;
    };
    const remember = (error: unknown) => {
      failure ??= error;
    };
    return {
      findToolResult: (runId, toolCallId): RecordedToolResult | undefined => {
        const held = waiting.get(`${runId}\u0000${toolCallId}`);
        if (held !== undefined) return held;
        return storedResults(runId).get(toolCallId);
      },
      recordToolResult: async (runId, result) => {
        throwFailure();
        if (result.rerunnable === true) {
          // Never written: the batch's commit holds its answer, and a crash before it runs the call again.
          const key = `${runId}\u0000${result.toolCallId}`;
          if (!waiting.has(key)) waiting.set(key, result);
          return;
        }
        await this.#whenFree(
          'recordToolResult',
          () => this.#pending.transaction(() => insert(runId, result)),
          this.#runBusyWaitMs,
        );
        // The first answer stays, as in the table (INSERT OR IGNORE).
        if (stored?.runId === runId && !stored.results.has(result.toolCallId)) {
          stored.results.set(result.toolCallId, result);
        }
      },
      commitStep: async (commit) => {
        throwFailure();
        const settled = (committed: boolean) => {
          if (committed && staged !== undefined) expected = staged;
          staged = undefined;
        };
        // A commit still queued would be written first in the same transaction: write both as one.
        let merged = commit;
        if (queued !== undefined) {
          queued.absorbed = true;
          merged = mergeStepCommits(queued.commit, commit);
          queued = undefined;
        }
        if (merged.rerunnable === true) {
          const entry: QueuedCommit = { commit: merged, absorbed: false };
          queued = entry;
          this.#pending.add({
            write: () => {
              if (entry.absorbed) return;
              if (queued === entry) queued = undefined;
              commitNow(entry.commit);
            },
            fail: remember,
            settled: (committed) => {
              if (entry.absorbed) return;
              // Rolled back and queued again: it may still be merged into the next commit.
              if (!committed) queued ??= entry;
              settled(committed);
            },
          });
          return;
        }
        try {
          await this.#whenFree(
            'commitStep',
            () => this.#pending.transaction(() => commitNow(merged)),
            this.#runBusyWaitMs,
          );
          settled(true);
        } finally {
          staged = undefined;
        }
        throwFailure();
      },
    };
  }

  /**
   * Writes one step; returns the message count after it, where the
   * journal's next commit must land. The session row is updated first,
   * only while the run is still its active run and its messages are where
   * the journal expects them (no read before the write); only when that
   * update finds nothing is the row read, to say why.
   */
  #commitStep({
    sessionId,
    commit,
    expected,
    hasTtl,
  }: {
    sessionId: string;
    commit: StepCommit;
    expected: number | undefined;
    hasTtl: boolean;
  }): number {
    const counters = stepCommitCounters(commit);
    const cost = counters.cost ?? null;
    const lastSeq = counters.lastSeq ?? null;
    const { steps, usage, runId } = commit;
    const inputTokens = usage.inputTokens;
    const outputTokens = usage.outputTokens;
    const fence = expected ?? null;
    const values: (number | string | null)[] = [
      commit.appended.length,
      steps,
      inputTokens,
      outputTokens,
      cost,
      steps,
      inputTokens,
      outputTokens,
      usage.cachedInputTokens ?? 0,
      cost,
      lastSeq,
    ];
    if (hasTtl) values.push(this.#now());
    values.push(sessionId, runId, fence, fence);
    const shapes = hasTtl ? commitStepSql.ttl : commitStepSql.noTtl;
    let after: number;
    if (expected === undefined) {
      const updated = this.#statement(shapes.unfenced).get(values) as { message_count: number } | undefined;
      if (updated === undefined) throw this.#commitConflict(sessionId, runId, expected);
      after = updated.message_count;
    } else {
      if (this.#statement(shapes.fenced).run(values).changes === 0) {
        throw this.#commitConflict(sessionId, runId, expected);
      }
      after = expected + commit.appended.length;
    }
    this.#insertMessages({
      sessionId,
      messages: commit.appended,
      from: after - commit.appended.length,
      runId,
    });
    return after;
  }

  /** Why a step commit found nothing to update: the session is gone, another run is active, or its messages moved. */
  #commitConflict(sessionId: string, runId: string, expected: number | undefined): Error {
    return stepCommitConflict({ sessionId, row: this.#existing(sessionId), runId, expected });
  }

  /**
   * Runs a versioned write: with `expectedVersion` once; without it, again
   * after each version conflict (bounded, with jittered backoff so
   * contending processes spread out). Never overwrites: each attempt
   * re-reads the version it writes against.
   */
  async #withRetries(
    operation: string,
    expectedVersion: number | undefined,
    attempt: (expectedVersion: number | undefined) => number,
  ): Promise<{ version: number }> {
    for (let retry = 0; ; retry += 1) {
      try {
        return { version: await this.#whenFree(operation, () => attempt(expectedVersion)) };
      } catch (error) {
        if (!isVersionConflict(error) || expectedVersion !== undefined || retry >= maxConflictRetries) {
          throw error;
        }
        this.#conflictRetries += 1;
        await sleep(Math.random() * Math.min(50, 2 ** retry));
      }
    }
  }

  /** Runs a write, retrying it asynchronously while another connection holds the database's write lock. */
  #whenFree<Result>(operation: string, write: () => Result, waitMs = this.#busyWaitMs): Promise<Result> {
    return retryWhileBusy({ operation, write, waitMs });
  }

  /**
   * One versioned write: reads the version (outside the transaction, as a
   * client reading then writing does) unless one is expected, then inside
   * `BEGIN IMMEDIATE` checks the session is still at it and applies
   * `change`. Returns the new version.
   */
  #write(sessionId: string, expectedVersion: number | undefined, change: (row: SessionRow) => void): number {
    const read = expectedVersion ?? this.#existing(sessionId).version;
    return this.#pending.transaction(() => {
      const row = this.#existing(sessionId);
      checkVersion({ sessionId, row, expectedVersion: read });
      change(row);
      return read + 1;
    });
  }

  #insertMessages({
    sessionId,
    messages,
    from,
    runId,
  }: {
    sessionId: string;
    messages: readonly ChatMessage[];
    from: number;
    runId: string | undefined;
  }): void {
    if (messages.length === 0) return;
    const now = this.#now();
    const run = runId ?? null;
    // One statement for up to `messagesPerInsert` messages (a step appends two: the answer and a tool's result).
    for (let start = 0; start < messages.length; start += messagesPerInsert) {
      const count = Math.min(messagesPerInsert, messages.length - start);
      const values: (string | number | null)[] = [];
      for (let index = start; index < start + count; index += 1) {
        values.push(sessionId, from + index, run, JSON.stringify(messages[index]), now);
      }
      this.#statement(insertMessagesSql[count - 1] as string).run(values);
    }
  }

  #row(sessionId: string): SessionRow | undefined {
    return this.#statement('SELECT * FROM sessions WHERE session_id = ?').get(sessionId) as SessionRow | undefined;
  }

  #existing(sessionId: string): SessionRow {
    const row = this.#row(sessionId);
    if (row === undefined) throw new SessionNotFoundError({ sessionId });
    return row;
  }

  /** The session's messages as stored (JSON), in position order. */
  #storedMessages(sessionId: string): string[] {
    const rows = this.#statement('SELECT message FROM session_messages WHERE session_id = ? ORDER BY position').all(
      sessionId,
    ) as { message: string }[];
    return rows.map((row) => row.message);
  }

  #loadNow(sessionId: string): Session | undefined {
    this.#pending.flush();
    return this.#readSession(sessionId);
  }
}

/**
 * A rerunnable step commit in the connection's queue. While `queued` in the
 * journal points at it, no transaction has taken it, and the next commit may
 * absorb it: its queued write then writes nothing.
 */
interface QueuedCommit {
  readonly commit: StepCommit;
  absorbed: boolean;
}

/**
 * Two consecutive step commits of one run as one: the messages of both, in
 * order, and the later one's counters (they are the run's totals so far).
 * One UPDATE of the session row instead of two in the transaction that
 * writes them, which it would have done anyway.
 */
function mergeStepCommits(earlier: StepCommit, later: StepCommit): StepCommit {
  return { ...later, appended: [...earlier.appended, ...later.appended] };
}
