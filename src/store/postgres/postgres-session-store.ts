import type { ChatMessage } from '../../core/chat-message.js';
import type { RecordedToolResult, RunJournal, StepCommit } from '../../core/run-journal.js';
import { SessionNotFoundError } from '../../errors/session-not-found-error.js';
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
  mergeSlots,
  purgeCutoff,
  stepCommitConflict,
  stepCommitCounters,
  stepCommitFits,
} from '../session-writes.js';
import { namedStatement } from './named-statement.js';
import type { PostgresDatabase, PostgresQuery } from './postgres-database.js';

const columns = `session_id, tenant_id, user_id, status, active_run_id, run_steps, run_input_tokens, run_output_tokens,
  run_cached_tokens, run_last_seq, run_cost, step_count, input_tokens, output_tokens, cost, slots, message_count,
  version, forked_from, forked_at, created_at, updated_at, expires_at, ttl_ms, run_locale, run_model`;

/**
 * What every write does to the session row besides its own change: one more
 * version, the time (`$1`), and a TTL pushed forward.
 */
const touch =
  'version = version + 1, updated_at = $1::bigint, expires_at = CASE WHEN ttl_ms IS NULL THEN expires_at ELSE $1::bigint + ttl_ms END';
/**
 * What a step commit inside a run does: the same without `updated_at`, so
 * the row's indexed columns stay as they were and PostgreSQL can update it
 * in place (a HOT update) instead of adding an entry to `sessions_by_update`
 * every step. The run moved `updated_at` when it began and moves it when it
 * ends or waits for a person.
 */
const touchStep =
  'version = version + 1, expires_at = CASE WHEN ttl_ms IS NULL THEN expires_at ELSE $1::bigint + ttl_ms END';

const statements = {
  create: namedStatement(
    `INSERT INTO sessions (session_id, tenant_id, user_id, slots, created_at, updated_at, expires_at, ttl_ms)
     VALUES ($1, $2, $3, $4, $5, $5, $6, $7)`,
  ),
  // One statement, one snapshot: the row and its messages as of the same commit.
  load: namedStatement(
    `SELECT ${columns}, ARRAY(SELECT message FROM session_messages m WHERE m.session_id = s.session_id ORDER BY position)
       AS messages
     FROM sessions s WHERE session_id = $1`,
  ),
  row: namedStatement(`SELECT ${columns} FROM sessions WHERE session_id = $1`),
  lock: namedStatement(`SELECT ${columns} FROM sessions WHERE session_id = $1 FOR UPDATE`),
  share: namedStatement(`SELECT ${columns} FROM sessions WHERE session_id = $1 FOR SHARE`),
  list: namedStatement(
    `SELECT ${columns} FROM sessions
     WHERE ($1::text IS NULL OR tenant_id = $1) AND ($2::text IS NULL OR user_id = $2)
     ORDER BY updated_at DESC, session_id LIMIT $3`,
  ),
  messages: namedStatement('SELECT message FROM session_messages WHERE session_id = $1 ORDER BY position'),
  // Any number of messages in one statement: positions from $2 on, in the array's order.
  insertMessages: namedStatement(
    `INSERT INTO session_messages (session_id, position, run_id, message, created_at)
     SELECT $1, $2::integer + entry.ordinality::integer - 1, $3, entry.message, $4
     FROM unnest($5::text[]) WITH ORDINALITY AS entry (message, ordinality)`,
  ),
  append: namedStatement(`UPDATE sessions SET message_count = message_count + $2, ${touch} WHERE session_id = $3`),
  setSlots: namedStatement(`UPDATE sessions SET slots = $2, ${touch} WHERE session_id = $3`),
  fork: namedStatement(
    `INSERT INTO sessions (session_id, tenant_id, user_id, slots, message_count, forked_from, forked_at,
       created_at, updated_at, expires_at, ttl_ms, run_locale, run_model)
     VALUES ($1, $2, $3, $4, $5, $6, $5, $7, $7, $8, $9, $10, $11)`,
  ),
  forkMessages: namedStatement(
    `INSERT INTO session_messages (session_id, position, run_id, message, created_at)
     SELECT $1, position, NULL, message, $2 FROM session_messages
     WHERE session_id = $3 AND position < $4 ORDER BY position`,
  ),
  purgeable: namedStatement(
    `SELECT session_id FROM sessions
     WHERE ($1::bigint IS NOT NULL AND updated_at < $1) OR ($2::boolean AND expires_at IS NOT NULL AND expires_at <= $3)
     ORDER BY session_id FOR UPDATE`,
  ),
  purgeToolResults: namedStatement('DELETE FROM tool_results WHERE session_id = ANY($1::text[])'),
  purgeMessages: namedStatement('DELETE FROM session_messages WHERE session_id = ANY($1::text[])'),
  purgeSessions: namedStatement('DELETE FROM sessions WHERE session_id = ANY($1::text[])'),
  resume: namedStatement(`UPDATE sessions SET status = 'running', ${touch} WHERE session_id = $2`),
  begin: namedStatement(
    `UPDATE sessions SET status = 'running', active_run_id = $2, run_steps = 0, run_input_tokens = 0,
       run_output_tokens = 0, run_cached_tokens = 0, run_last_seq = 0, run_cost = 0,
       run_locale = $3, run_model = $4, ${touch}
     WHERE session_id = $5`,
  ),
  countBegun: namedStatement('UPDATE sessions SET message_count = message_count + $1 WHERE session_id = $2'),
  endRun: namedStatement(
    `UPDATE sessions SET status = $2::text,
       active_run_id = CASE WHEN $2::text = 'idle' THEN NULL ELSE active_run_id END,
       run_last_seq = GREATEST(run_last_seq, $3::bigint), ${touch}
     WHERE session_id = $4 AND active_run_id = $5`,
  ),
  commitStep: namedStatement(
    `UPDATE sessions SET message_count = message_count + $2, run_steps = GREATEST(run_steps, $3),
       run_input_tokens = GREATEST(run_input_tokens, $4), run_output_tokens = GREATEST(run_output_tokens, $5),
       run_cached_tokens = GREATEST(run_cached_tokens, $6), run_cost = GREATEST(run_cost, $7),
       run_last_seq = GREATEST(run_last_seq, $8),
       step_count = step_count + $9, input_tokens = input_tokens + $10,
       output_tokens = output_tokens + $11, cost = cost + $12, ${touchStep}
     WHERE session_id = $13`,
  ),
  findToolResult: namedStatement(
    'SELECT tool_call_id, tool, content, outcome FROM tool_results WHERE run_id = $1 AND tool_call_id = $2',
  ),
  recordToolResult: namedStatement(
    `INSERT INTO tool_results (run_id, tool_call_id, session_id, tool, content, outcome, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (run_id, tool_call_id) DO NOTHING`,
  ),
};

/**
 * Sessions in PostgreSQL, with the behaviour of `SqliteSessionStore`, so
 * any number of processes and nodes can share them. Every write is one
 * transaction that first locks the session's row (`SELECT … FOR UPDATE`):
 *
 * - with `expectedVersion`, the write is refused with `SessionConflictError`
 *   when the locked row has moved on (optimistic concurrency, as in SQLite);
 * - without it, the write applies to the row as locked, so concurrent
 *   writers queue on the lock instead of retrying: none overwrites another,
 *   each adds one version;
 * - a journal's step commit locks the row, checks that its run is still the
 *   active one and that the messages are where it left them, then writes
 *   the messages and the counters together.
 *
 * `beginRun`'s `inTransaction` runs inside the begin's transaction, after
 * the row is locked and marked; it is synchronous and must not do I/O on
 * another connection (it would wait outside the transaction it is part of).
 *
 * @example
 * const { sessions } = await openPostgresBackend({ connectionString: 'postgres://localhost/arbiter' });
 * const session = await sessions.create({ principal, ttlMs: 7 * 86_400_000 });
 * await runSession({ sessions, sessionId: session.id, userMessage: 'Where is my order?', model, tools });
 */
export class PostgresSessionStore implements SessionStore {
  readonly #database: PostgresDatabase;
  readonly #now: () => number;

  constructor({ database, now = Date.now }: { database: PostgresDatabase; now?: () => number }) {
    this.#database = database;
    this.#now = now;
  }

  async create({
    sessionId = timeOrderedId(),
    principal,
    ttlMs,
    slots = {},
  }: CreateSessionOptions = {}): Promise<Session> {
    const row = newSessionValues({ sessionId, principal, ttlMs, slots, now: this.#now() });
    await this.#database.query(statements.create, [
      row.sessionId,
      row.tenantId,
      row.userId,
      row.slots,
      row.now,
      row.expiresAt,
      row.ttlMs,
    ]);
    return (await this.load(sessionId)) as Session;
  }

  async load(sessionId: string): Promise<Session | undefined> {
    const row = (await this.#database.query<SessionRow & { messages: string[] }>(statements.load, [sessionId])).rows[0];
    return row === undefined ? undefined : toSession(row, row.messages);
  }

  async list({ limit = 100, tenantId, userId }: ListSessionsOptions = {}): Promise<readonly SessionSummary[]> {
    const { rows } = await this.#database.query<SessionRow>(statements.list, [tenantId ?? null, userId ?? null, limit]);
    return rows.map(toSummary);
  }

  async append({ sessionId, messages, expectedVersion, runId }: AppendRequest): Promise<{ version: number }> {
    const version = await this.#write(sessionId, expectedVersion, async (query, row) => {
      checkAppend({ sessionId, row, runId });
      await this.#insertMessages(query, { sessionId, messages, from: row.message_count, runId });
      await query(statements.append, [this.#now(), messages.length, sessionId]);
    });
    return { version };
  }

  async setSlots({
    sessionId,
    slots,
    expectedVersion,
  }: SetSlotsRequest): Promise<{ version: number; slots: Readonly<Record<string, unknown>> }> {
    let merged: Record<string, unknown> = {};
    const version = await this.#write(sessionId, expectedVersion, async (query, row) => {
      merged = mergeSlots(row, slots);
      await query(statements.setSlots, [this.#now(), JSON.stringify(merged), sessionId]);
    });
    return { version, slots: merged };
  }

  async getSlots(sessionId: string): Promise<Readonly<Record<string, unknown>> | undefined> {
    const row = (await this.#database.query<SessionRow>(statements.row, [sessionId])).rows[0];
    return row === undefined ? undefined : parseSlots(row);
  }

  async fork({ sessionId, atMessage, newSessionId = timeOrderedId(), ttlMs }: ForkRequest): Promise<Session> {
    await this.#database.transaction(async (query) => {
      const row = await this.#locked(query, sessionId, statements.share);
      const stored = (await query<{ message: string }>(statements.messages, [sessionId])).rows;
      const cut = forkCut({ sessionId, messages: parseMessages(stored.map((entry) => entry.message)), atMessage });
      const fork = forkedSessionValues({ row, newSessionId, cut, ttlMs, now: this.#now() });
      await query(statements.fork, [
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
      await query(statements.forkMessages, [fork.sessionId, fork.now, sessionId, cut]);
    });
    return (await this.load(newSessionId)) as Session;
  }

  async purge({ olderThanDays, expired = false }: PurgeRequest): Promise<{ sessionIds: readonly string[] }> {
    const now = this.#now();
    const before = purgeCutoff({ olderThanDays, now });
    return this.#database.transaction(async (query) => {
      const ids = (await query<{ session_id: string }>(statements.purgeable, [before, expired, now])).rows.map(
        (row) => row.session_id,
      );
      if (ids.length > 0) {
        await query(statements.purgeToolResults, [ids]);
        await query(statements.purgeMessages, [ids]);
        await query(statements.purgeSessions, [ids]);
      }
      return { sessionIds: ids };
    });
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
    const version = await this.#write(sessionId, expectedVersion, async (query, row) => {
      const begun = begunRun({ sessionId, runId, row });
      const now = this.#now();
      if (begun.resumed) await query(statements.resume, [now, sessionId]);
      else await query(statements.begin, [now, runId, locale ?? null, model ?? null, sessionId]);
      await this.#insertMessages(query, { sessionId, messages, from: begun.messageOffset, runId });
      await query(statements.countBegun, [messages.length, sessionId]);
      inTransaction?.(begun);
    });
    return { version };
  }

  async endRun({ sessionId, runId, status, lastSeq }: EndRunRequest): Promise<void> {
    await this.#database.query(statements.endRun, [this.#now(), status, lastSeq, sessionId, runId]);
  }

  journal({ sessionId, expectedMessageCount }: JournalRequest): RunJournal {
    let expected = expectedMessageCount;
    return {
      findToolResult: async (runId, toolCallId): Promise<RecordedToolResult | undefined> => {
        const row = (await this.#database.query<ToolResultRow>(statements.findToolResult, [runId, toolCallId])).rows[0];
        return row === undefined ? undefined : toRecordedToolResult(row);
      },
      recordToolResult: async (runId, result) => {
        await this.#database.query(
          statements.recordToolResult,
          toolResultValues({ runId, sessionId, result, now: this.#now() }),
        );
      },
      commitStep: async (commit) => {
        expected = await this.#database.transaction((query) => this.#commitStep(query, sessionId, commit, expected));
      },
    };
  }

  /** Writes one step; returns the message count after it, where the journal's next commit must land. */
  async #commitStep(
    query: PostgresQuery,
    sessionId: string,
    commit: StepCommit,
    expected: number | undefined,
  ): Promise<number> {
    const row = await this.#locked(query, sessionId);
    const { runId } = commit;
    if (!stepCommitFits({ row, runId, expected })) throw stepCommitConflict({ sessionId, row, runId, expected });
    const counters = stepCommitCounters(commit);
    const cost = counters.cost ?? row.run_cost;
    const lastSeq = counters.lastSeq ?? row.run_last_seq;
    await this.#insertMessages(query, {
      sessionId,
      messages: commit.appended,
      from: row.message_count,
      runId: commit.runId,
    });
    await query(statements.commitStep, [
      this.#now(),
      commit.appended.length,
      commit.steps,
      commit.usage.inputTokens,
      commit.usage.outputTokens,
      commit.usage.cachedInputTokens ?? 0,
      cost,
      lastSeq,
      Math.max(0, commit.steps - row.run_steps),
      Math.max(0, commit.usage.inputTokens - row.run_input_tokens),
      Math.max(0, commit.usage.outputTokens - row.run_output_tokens),
      Math.max(0, cost - row.run_cost),
      sessionId,
    ]);
    return row.message_count + commit.appended.length;
  }

  /**
   * One versioned write, in one transaction: locks the session's row,
   * refuses it when `expectedVersion` is given and the row is at another
   * version, applies `change`. Returns the new version.
   */
  #write(
    sessionId: string,
    expectedVersion: number | undefined,
    change: (query: PostgresQuery, row: SessionRow) => Promise<void>,
  ): Promise<number> {
    return this.#database.transaction(async (query) => {
      const row = await this.#locked(query, sessionId);
      checkVersion({ sessionId, row, expectedVersion });
      await change(query, row);
      return row.version + 1;
    });
  }

  async #insertMessages(
    query: PostgresQuery,
    {
      sessionId,
      messages,
      from,
      runId,
    }: { sessionId: string; messages: readonly ChatMessage[]; from: number; runId: string | undefined },
  ): Promise<void> {
    if (messages.length === 0) return;
    await query(statements.insertMessages, [
      sessionId,
      from,
      runId ?? null,
      this.#now(),
      messages.map((message) => JSON.stringify(message)),
    ]);
  }

  /** The session's row, locked for the rest of the transaction (`FOR UPDATE`, or `FOR SHARE` for a fork). */
  async #locked(query: PostgresQuery, sessionId: string, statement = statements.lock): Promise<SessionRow> {
    const row = (await query<SessionRow>(statement, [sessionId])).rows[0];
    if (row === undefined) throw new SessionNotFoundError({ sessionId });
    return row;
  }
}
