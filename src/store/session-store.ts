import type { RunUsage } from '../events/agent-event.js';
import type { Principal } from '../gate/principal.js';
import type { ChatMessage } from '../loop/chat-message.js';
import type { RunJournal } from '../loop/run-journal.js';

export type SessionStatus = 'idle' | 'running' | 'awaiting_approval';

/** The run a session is in the middle of, with its counters as last committed. */
export interface ActiveRun {
  readonly runId: string;
  readonly steps: number;
  readonly usage: RunUsage;
  readonly lastSeq: number;
}

/** A conversation and everything needed to continue it in another process. */
export interface Session {
  readonly id: string;
  readonly tenantId: string | undefined;
  readonly userId: string | undefined;
  readonly status: SessionStatus;
  readonly activeRun: ActiveRun | undefined;
  readonly messages: readonly ChatMessage[];
  /** Model calls over the session's life. */
  readonly stepCount: number;
  /** Tokens spent over the session's life. */
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
  /** Parameters the user confirmed (kept verbatim through compression). */
  readonly slots: Readonly<Record<string, unknown>>;
  /** Incremented by every write; a write names the version it read. */
  readonly version: number;
  readonly forkedFrom: string | undefined;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly expiresAt: number | undefined;
}

/**
 * Durable sessions. Every write is one transaction and carries the version
 * it read; the SQLite implementation is the embedded default, and the loop
 * only sees this interface (through `journal`), so a PostgreSQL store can
 * take its place.
 *
 * @example
 * const session = await sessions.create({ principal });
 * await sessions.append({ sessionId: session.id, messages: [{ role: 'user', content: 'Hi' }] });
 */
export interface SessionStore {
  create(options?: { sessionId?: string; principal?: Principal; ttlMs?: number }): Promise<Session>;
  load(sessionId: string): Promise<Session | undefined>;
  /**
   * Appends messages in one transaction. With `expectedVersion` the write
   * fails with `SessionConflictError` if the session moved on; without it,
   * a conflict reloads and retries (bounded), never overwrites.
   */
  append(request: {
    sessionId: string;
    messages: readonly ChatMessage[];
    expectedVersion?: number;
    runId?: string;
  }): Promise<{ version: number }>;
  /** Marks a run active; fails with `SessionConflictError` (naming the active run) when one already is. */
  beginRun(request: { sessionId: string; runId: string }): Promise<void>;
  /** Leaves the run: `idle` when it finished, `awaiting_approval` when it waits for a person. */
  endRun(request: {
    sessionId: string;
    runId: string;
    status: 'idle' | 'awaiting_approval';
    lastSeq: number;
  }): Promise<void>;
  /** The run journal that writes a run's steps and tool results into this session. */
  journal(request: { sessionId: string }): RunJournal;
}
