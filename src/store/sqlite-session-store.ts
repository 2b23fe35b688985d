import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { SessionConflictError } from '../errors/session-conflict-error.js';
import type { Principal } from '../gate/principal.js';
import type { ChatMessage } from '../loop/chat-message.js';
import type { RecordedToolResult, RunJournal, StepCommit } from '../loop/run-journal.js';
import type { ToolOutcome } from '../tools/tool-types.js';
import type { Session, SessionStatus, SessionStore } from './session-store.js';

interface SessionRow {
  session_id: string;
  tenant_id: string | null;
  user_id: string | null;
  status: SessionStatus;
  active_run_id: string | null;
  run_steps: number;
  run_input_tokens: number;
  run_output_tokens: number;
  run_cached_tokens: number;
  run_last_seq: number;
  step_count: number;
  input_tokens: number;
  output_tokens: number;
  slots: string;
  message_count: number;
  version: number;
  forked_from: string | null;
  created_at: number;
  updated_at: number;
  expires_at: number | null;
}

const maxConflictRetries = 20;

/**
 * Sessions in arbiter's SQLite store. Writes run in `BEGIN IMMEDIATE`
 * transactions, so several processes can share one file (WAL) without
 * losing or reordering a message.
 *
 * @example
 * const store = openSqliteStore({ path: '.arbiter/arbiter.db' });
 * const sessions = new SqliteSessionStore({ database: store.database });
 */
export class SqliteSessionStore implements SessionStore {
  readonly #database: Database.Database;
  readonly #now: () => number;

  constructor({ database, now = Date.now }: { database: Database.Database; now?: () => number }) {
    this.#database = database;
    this.#now = now;
  }

  async create({
    sessionId = randomUUID(),
    principal,
    ttlMs,
  }: {
    sessionId?: string;
    principal?: Principal;
    ttlMs?: number;
  } = {}): Promise<Session> {
    const now = this.#now();
    this.#database
      .prepare(
        `INSERT INTO sessions (session_id, tenant_id, user_id, created_at, updated_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(
        sessionId,
        principal?.tenantId ?? null,
        principal?.userId ?? null,
        now,
        now,
        ttlMs === undefined ? null : now + ttlMs,
      );
    return this.#loadNow(sessionId) as Session;
  }

  async load(sessionId: string): Promise<Session | undefined> {
    return this.#loadNow(sessionId);
  }

  async append({
    sessionId,
    messages,
    expectedVersion,
    runId,
  }: {
    sessionId: string;
    messages: readonly ChatMessage[];
    expectedVersion?: number;
    runId?: string;
  }): Promise<{ version: number }> {
    for (let attempt = 0; ; attempt += 1) {
      const row = this.#row(sessionId);
      if (row === undefined)
        throw new SessionConflictError({ sessionId, message: `session ${sessionId} does not exist` });
      const base = expectedVersion ?? row.version;
      try {
        return { version: this.#appendAt({ sessionId, messages, base, runId }) };
      } catch (error) {
        if (!SessionConflictError.isInstance(error) || expectedVersion !== undefined || attempt >= maxConflictRetries) {
          throw error;
        }
      }
    }
  }

  async beginRun({ sessionId, runId }: { sessionId: string; runId: string }): Promise<void> {
    this.#database
      .transaction(() => {
        const row = this.#row(sessionId);
        if (row === undefined)
          throw new SessionConflictError({ sessionId, message: `session ${sessionId} does not exist` });
        if (row.active_run_id === runId) {
          this.#database
            .prepare('UPDATE sessions SET status = ?, version = version + 1, updated_at = ? WHERE session_id = ?')
            .run('running', this.#now(), sessionId);
          return;
        }
        if (row.active_run_id !== null) {
          throw new SessionConflictError({
            sessionId,
            activeRunId: row.active_run_id,
            message: `session ${sessionId} already has run ${row.active_run_id} in progress`,
          });
        }
        this.#database
          .prepare(
            `UPDATE sessions SET status = 'running', active_run_id = ?, run_steps = 0, run_input_tokens = 0,
               run_output_tokens = 0, run_cached_tokens = 0, run_last_seq = 0, version = version + 1, updated_at = ?
             WHERE session_id = ?`,
          )
          .run(runId, this.#now(), sessionId);
      })
      .immediate();
  }

  async endRun({
    sessionId,
    runId,
    status,
    lastSeq,
  }: {
    sessionId: string;
    runId: string;
    status: 'idle' | 'awaiting_approval';
    lastSeq: number;
  }): Promise<void> {
    this.#database
      .prepare(
        `UPDATE sessions SET status = ?, active_run_id = CASE WHEN ? = 'idle' THEN NULL ELSE active_run_id END,
           run_last_seq = ?, version = version + 1, updated_at = ?
         WHERE session_id = ? AND active_run_id = ?`,
      )
      .run(status, status, lastSeq, this.#now(), sessionId, runId);
  }

  journal({ sessionId }: { sessionId: string }): RunJournal {
    const database = this.#database;
    const find = database.prepare(
      'SELECT tool, content, outcome FROM tool_results WHERE run_id = ? AND tool_call_id = ?',
    );
    const record = database.prepare(
      `INSERT OR IGNORE INTO tool_results (run_id, tool_call_id, session_id, tool, content, outcome, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    return {
      findToolResult: (runId, toolCallId): RecordedToolResult | undefined => {
        const row = find.get(runId, toolCallId) as { tool: string; content: string; outcome: string } | undefined;
        if (row === undefined) return undefined;
        return { toolCallId, tool: row.tool, content: row.content, outcome: JSON.parse(row.outcome) as ToolOutcome };
      },
      recordToolResult: (runId, result) => {
        record.run(
          runId,
          result.toolCallId,
          sessionId,
          result.tool,
          result.content,
          JSON.stringify(result.outcome),
          this.#now(),
        );
      },
      commitStep: (commit) => this.#commitStep(sessionId, commit),
    };
  }

  #commitStep(sessionId: string, commit: StepCommit): void {
    this.#database
      .transaction(() => {
        const row = this.#row(sessionId);
        if (row === undefined)
          throw new SessionConflictError({ sessionId, message: `session ${sessionId} does not exist` });
        const stepDelta = Math.max(0, commit.steps - row.run_steps);
        const inputDelta = Math.max(0, commit.usage.inputTokens - row.run_input_tokens);
        const outputDelta = Math.max(0, commit.usage.outputTokens - row.run_output_tokens);
        this.#insertMessages({ sessionId, messages: commit.appended, from: row.message_count, runId: commit.runId });
        this.#database
          .prepare(
            `UPDATE sessions SET message_count = message_count + ?, run_steps = MAX(run_steps, ?),
               run_input_tokens = MAX(run_input_tokens, ?), run_output_tokens = MAX(run_output_tokens, ?),
               run_cached_tokens = MAX(run_cached_tokens, ?), step_count = step_count + ?,
               input_tokens = input_tokens + ?, output_tokens = output_tokens + ?, version = version + 1, updated_at = ?
             WHERE session_id = ?`,
          )
          .run(
            commit.appended.length,
            commit.steps,
            commit.usage.inputTokens,
            commit.usage.outputTokens,
            commit.usage.cachedInputTokens ?? 0,
            stepDelta,
            inputDelta,
            outputDelta,
            this.#now(),
            sessionId,
          );
      })
      .immediate();
  }

  #appendAt({
    sessionId,
    messages,
    base,
    runId,
  }: {
    sessionId: string;
    messages: readonly ChatMessage[];
    base: number;
    runId: string | undefined;
  }): number {
    return this.#database
      .transaction(() => {
        const row = this.#row(sessionId);
        if (row === undefined)
          throw new SessionConflictError({ sessionId, message: `session ${sessionId} does not exist` });
        if (row.version !== base) {
          throw new SessionConflictError({
            sessionId,
            message: `session ${sessionId} is at version ${row.version}, not ${base}`,
          });
        }
        this.#insertMessages({ sessionId, messages, from: row.message_count, runId });
        this.#database
          .prepare(
            'UPDATE sessions SET message_count = message_count + ?, version = version + 1, updated_at = ? WHERE session_id = ? AND version = ?',
          )
          .run(messages.length, this.#now(), sessionId, base);
        return base + 1;
      })
      .immediate();
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
    const insert = this.#database.prepare(
      'INSERT INTO session_messages (session_id, position, run_id, message, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    const now = this.#now();
    messages.forEach((message, index) => {
      insert.run(sessionId, from + index, runId ?? null, JSON.stringify(message), now);
    });
  }

  #row(sessionId: string): SessionRow | undefined {
    return this.#database.prepare('SELECT * FROM sessions WHERE session_id = ?').get(sessionId) as
      | SessionRow
      | undefined;
  }

  #loadNow(sessionId: string): Session | undefined {
    const row = this.#row(sessionId);
    if (row === undefined) return undefined;
    const messages = (
      this.#database
        .prepare('SELECT message FROM session_messages WHERE session_id = ? ORDER BY position')
        .all(sessionId) as { message: string }[]
    ).map((entry) => JSON.parse(entry.message) as ChatMessage);
    return {
      id: row.session_id,
      tenantId: row.tenant_id ?? undefined,
      userId: row.user_id ?? undefined,
      status: row.status,
      activeRun:
        row.active_run_id === null
          ? undefined
          : {
              runId: row.active_run_id,
              steps: row.run_steps,
              usage: {
                inputTokens: row.run_input_tokens,
                outputTokens: row.run_output_tokens,
                cachedInputTokens: row.run_cached_tokens,
                totalTokens: row.run_input_tokens + row.run_output_tokens,
              },
              lastSeq: row.run_last_seq,
            },
      messages,
      stepCount: row.step_count,
      usage: { inputTokens: row.input_tokens, outputTokens: row.output_tokens },
      slots: JSON.parse(row.slots) as Record<string, unknown>,
      version: row.version,
      forkedFrom: row.forked_from ?? undefined,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      expiresAt: row.expires_at ?? undefined,
    };
  }
}
