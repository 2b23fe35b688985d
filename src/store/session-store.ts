import type { ChatMessage } from '../core/chat-message.js';
import type { Locale } from '../core/locale.js';
import type { Principal } from '../core/principal.js';
import type { RunJournal } from '../core/run-journal.js';
import type { RunUsage } from '../core/run-usage.js';

export type SessionStatus = 'idle' | 'running' | 'awaiting_approval';

/** The run a session is in the middle of, with its counters as last committed. */
export interface ActiveRun {
  readonly runId: string;
  readonly steps: number;
  readonly usage: RunUsage;
  readonly lastSeq: number;
  /** What the run's model calls cost so far, when the loop prices them (0 otherwise). */
  readonly cost: number;
}

/** What `beginRun` tells its `inTransaction` callback about the run it marked. */
export interface BegunRun {
  readonly sessionId: string;
  readonly runId: string;
  /** True when the run was already the session's active run (a resume). */
  readonly resumed: boolean;
  /** How many messages the session held before the run's own (its request). */
  readonly messageOffset: number;
}

/** A session without its messages and slots: what a listing shows. */
export interface SessionSummary {
  readonly id: string;
  readonly tenantId: string | undefined;
  readonly userId: string | undefined;
  readonly status: SessionStatus;
  readonly activeRunId: string | undefined;
  readonly messageCount: number;
  /** Model calls over the session's life. */
  readonly stepCount: number;
  /** Tokens spent over the session's life. */
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
  /** What the session's model calls cost, when the loop prices them (0 otherwise). */
  readonly cost: number;
  /** Incremented by every write; a write names the version it read. */
  readonly version: number;
  /** The session this one was forked from, and at which message. */
  readonly forkedFrom: string | undefined;
  readonly forkedAt: number | undefined;
  readonly createdAt: number;
  /**
   * When the session was last changed: appended to, its slots set, a run
   * begun, ended or left waiting for a person. The steps of a running run
   * do not move it (they are counted in `version`).
   */
  readonly updatedAt: number;
  /** When the session may be purged; moved forward by every write when the session has a TTL. */
  readonly expiresAt: number | undefined;
  readonly ttlMs: number | undefined;
  /**
   * The language of the session's latest run (the active one, while there is
   * one), as `beginRun` recorded it: whoever resumes the run continues in it,
   * whatever language the resuming process was asked for. Undefined for
   * sessions whose runs began before it was recorded.
   */
  readonly locale: Locale | undefined;
  /** The name of the model (e.g. `scripted:order-status`) the session's latest run began with, likewise. */
  readonly model: string | undefined;
}

/** A conversation and everything needed to continue it in another process. */
export interface Session extends Omit<SessionSummary, 'activeRunId' | 'messageCount'> {
  readonly activeRun: ActiveRun | undefined;
  readonly messages: readonly ChatMessage[];
  /** Parameters the user confirmed (kept verbatim through compression). */
  readonly slots: Readonly<Record<string, unknown>>;
}

/** What `SessionStore.create` is asked for. */
export interface CreateSessionOptions {
  sessionId?: string;
  principal?: Principal;
  ttlMs?: number;
  slots?: Readonly<Record<string, unknown>>;
}

/** What `SessionStore.list` is asked for. */
export interface ListSessionsOptions {
  limit?: number;
  tenantId?: string;
  userId?: string;
}

/** What `SessionStore.append` is asked for. */
export interface AppendRequest {
  sessionId: string;
  messages: readonly ChatMessage[];
  expectedVersion?: number;
  runId?: string;
}

/** What `SessionStore.setSlots` is asked for. */
export interface SetSlotsRequest {
  sessionId: string;
  slots: Readonly<Record<string, unknown>>;
  expectedVersion?: number;
}

/** What `SessionStore.fork` is asked for. */
export interface ForkRequest {
  sessionId: string;
  atMessage?: number;
  newSessionId?: string;
  ttlMs?: number;
}

/** What `SessionStore.purge` is asked for. */
export interface PurgeRequest {
  olderThanDays?: number;
  expired?: boolean;
}

/** What `SessionStore.beginRun` is asked for. */
export interface BeginRunRequest {
  sessionId: string;
  runId: string;
  messages?: readonly ChatMessage[];
  /** The language the run speaks. */
  locale?: Locale;
  /** The name of the model the run uses. */
  model?: string;
  expectedVersion?: number;
  /**
   * Called inside the begin's transaction (see `beginRun`). A program
   * (`SqlProgram`) it returns runs in that transaction too: another table's
   * write committed with the run's beginning, or with neither. Any other
   * value it returns is ignored.
   */
  inTransaction?: (begun: BegunRun) => unknown;
}

/** What `SessionStore.endRun` is asked for. */
export interface EndRunRequest {
  sessionId: string;
  runId: string;
  status: 'idle' | 'awaiting_approval';
  lastSeq: number;
}

/** What `SessionStore.journal` is asked for. */
export interface JournalRequest {
  sessionId: string;
  expectedMessageCount?: number;
  /**
   * A run the caller has just begun (not resumed): nothing can be stored
   * for it yet, so the journal answers its recorded results from what it
   * records itself, without reading them.
   */
  newRunId?: string;
  /**
   * The caller would end the run as `endRun` with status `idle` right after
   * its answer (`runSession` does): a journal that can ends it in the
   * transaction that commits the answer (`StepCommit.endsRun`), one write
   * fewer and no moment when the answer is stored but the run still active,
   * and says so (`RunJournal.runEnded`). A store that wraps `endRun` with
   * work of its own must not pass it on.
   */
  endRunWithAnswer?: boolean;
}

/**
 * Durable sessions. Every write is one transaction and carries the version
 * it read; the SQLite implementation is the embedded default, and the loop
 * only sees this interface (through `journal`), so a PostgreSQL store can
 * take its place.
 *
 * @example
 * const session = await sessions.create({ principal, ttlMs: 7 * 86_400_000 });
 * await sessions.append({ sessionId: session.id, messages: [{ role: 'user', content: 'Hi' }] });
 * await sessions.setSlots({ sessionId: session.id, slots: { order_id: 'SO20260901' } });
 */
export interface SessionStore {
  /** A new, empty session. `ttlMs` makes it expire that long after its last write. */
  create(options?: CreateSessionOptions): Promise<Session>;
  load(sessionId: string): Promise<Session | undefined>;
  /** Sessions, most recently updated first. */
  list(options?: ListSessionsOptions): Promise<readonly SessionSummary[]>;
  /**
   * Appends messages in one transaction. With `expectedVersion` the write
   * fails with `SessionConflictError` if the session moved on; without it,
   * it applies to the session as its transaction finds it (concurrent
   * writers queue on the session's lock), never overwrites. Refused while
   * another run than `runId` is active: its tool calls and their answers
   * must stay together.
   */
  append(request: AppendRequest): Promise<{ version: number }>;
  /**
   * Merges confirmed parameters into the session's slots (a value of
   * `undefined` removes the slot). Same versioning as `append`.
   */
  setSlots(request: SetSlotsRequest): Promise<{ version: number; slots: Readonly<Record<string, unknown>> }>;
  getSlots(sessionId: string): Promise<Readonly<Record<string, unknown>> | undefined>;
  /**
   * A new session holding a copy of messages `[0, atMessage)` (default: all)
   * and of the slots, sharing nothing mutable with the original, with
   * `forkedFrom` set. Fails with `InvalidForkPointError` (naming the nearest
   * valid points) when the cut would separate tool calls from their answers.
   */
  fork(request: ForkRequest): Promise<Session>;
  /**
   * Deletes sessions, with their messages and recorded tool results: those
   * not written for `olderThanDays` days, and with `expired` those past
   * their `expiresAt`. Returns the ids deleted.
   */
  purge(request: PurgeRequest): Promise<{ sessionIds: readonly string[] }>;
  /**
   * Marks a run active, appending its first messages (the user's request) in
   * the same transaction, so a crash cannot leave a run without its request.
   * Fails with `SessionConflictError` when another run is active (naming it),
   * or when `expectedVersion` is given and the session moved on (two
   * processes resuming the same run).
   *
   * `inTransaction`, when given, is called inside that same write, once the
   * session is marked: what the caller keeps about the run (the server's
   * record of it) then begins in the same commit as the run, or not at all
   * (a throw rolls the whole write back). It may be called more than once
   * when the write is retried; only the last call's writes remain. It is
   * synchronous and runs while the session's row is locked: on PostgreSQL
   * it must not do I/O on another connection (that write would not be part
   * of the begin, and could wait on the lock the begin holds).
   *
   * A new run records `locale` and `model` as the session's (see
   * `SessionSummary.locale`); a resumed run keeps those it began with.
   */
  beginRun(request: BeginRunRequest): Promise<{ version: number }>;
  /** Leaves the run: `idle` when it finished, `awaiting_approval` when it waits for a person. */
  endRun(request: EndRunRequest): Promise<void>;
  /**
   * The run journal that writes a run's steps and tool results into this
   * session. A commit is refused (`SessionConflictError`) when the run is no
   * longer the session's active run, or when the session's messages moved
   * since this journal last wrote (another process resumed the run):
   * `expectedMessageCount`, when given, is where the first commit must land.
   */
  journal(request: JournalRequest): RunJournal;
}
