/**
 * `SqlSessionStore`'s writes as programs for the dialect port, each a
 * generator function of this module, made once: a generator function made
 * per call (a `function*` or `*work()` inside a method) gives each of its
 * generators a hidden class of its own in V8's old space, which keeps what
 * the write referenced alive until the next full collection (issue 48).
 * A write's arguments come in as the program's parameters instead.
 *
 * @module
 */
import type { ChatMessage } from '../../core/chat-message.js';
import type { Locale } from '../../core/locale.js';
import { forkedSessionValues, parseMessages, type SessionRow } from '../session-rows.js';
import type { BegunRun } from '../session-store.js';
import { dialect, isSqlProgram, rows, run, type SqlProgram } from '../sql/sql-program.js';
import { existingRow, insertMessages, type LockedSessionRow } from './session-programs.js';
import { sessionStatements as statements } from './session-statements.js';
import { begunRun, checkVersion, forkCut } from './session-writes.js';

/**
 * One versioned write: reads the session's row locked, refuses the write
 * when `expectedVersion` is given and the row is at another version, runs
 * the program `change` makes of the row. Answers the new version.
 *
 * @example
 * port.run(transaction(() => versionedWrite({ sessionId, expectedVersion, change: (row) => run(touch, [row.session_id]) })));
 */
export function* versionedWrite({
  sessionId,
  expectedVersion,
  change,
}: {
  sessionId: string;
  expectedVersion: number | undefined;
  /** The write's statements for the row as locked: a plain function that answers a program, not a generator function. */
  change: (row: LockedSessionRow) => SqlProgram<unknown>;
}): SqlProgram<{ version: number }> {
  const row = yield* existingRow<LockedSessionRow>(sessionId, statements.lockRow);
  checkVersion({ sessionId, row, expectedVersion });
  yield* change(row);
  return { version: row.version + 1 };
}

/**
 * Appends `messages` at position `from` and counts them on the session's row.
 *
 * @example
 * yield* appendMessages({ sessionId, messages, from: row.message_count, runId, now: Date.now() });
 */
export function* appendMessages({
  sessionId,
  messages,
  from,
  runId,
  now,
}: {
  sessionId: string;
  messages: readonly ChatMessage[];
  from: number;
  runId: string | undefined;
  now: number;
}): SqlProgram<void> {
  yield* insertMessages({ sessionId, messages, from, runId, now });
  yield* run(statements.append, [now, messages.length, sessionId]);
}

/**
 * Begins run `runId` on the session's locked `row`, or resumes it: marks the
 * row running, writes the run's first messages, then runs `inTransaction`
 * (and the program it answers, if any) in the same transaction.
 *
 * @example
 * yield* beginRunSteps({ sessionId, runId, messages, row, now: Date.now() });
 */
export function* beginRunSteps({
  sessionId,
  runId,
  messages,
  locale,
  model,
  row,
  now,
  inTransaction,
}: {
  sessionId: string;
  runId: string;
  messages: readonly ChatMessage[];
  locale?: Locale | undefined;
  model?: string | undefined;
  row: Pick<SessionRow, 'active_run_id' | 'message_count' | 'ttl_ms'>;
  now: () => number;
  inTransaction?: ((begun: BegunRun) => unknown) | undefined;
}): SqlProgram<void> {
  const begun = begunRun({ sessionId, runId, row });
  const at = now();
  if (begun.resumed) {
    yield* run(statements.resumeRun, [at, messages.length, sessionId]);
  } else {
    // The TTL's statement only for a session with one: the row is locked, and its TTL is set when it is made.
    const begin = row.ttl_ms === null ? statements.beginRun.noTtl : statements.beginRun.ttl;
    yield* run(begin, [at, runId, locale ?? null, model ?? null, messages.length, sessionId]);
  }
  yield* insertMessages({ sessionId, messages, from: begun.messageOffset, runId, now: at });
  const more = inTransaction?.(begun);
  if (isSqlProgram(more)) yield* more;
}

/**
 * Forks session `sessionId` at message `atMessage` into `newSessionId`: the
 * row (read under a share lock) and the messages before the cut.
 *
 * @example
 * yield* forkSession({ sessionId, atMessage: 4, newSessionId, ttlMs: undefined, now: Date.now });
 */
export function* forkSession({
  sessionId,
  atMessage,
  newSessionId,
  ttlMs,
  now,
}: {
  sessionId: string;
  atMessage: number | undefined;
  newSessionId: string;
  ttlMs: number | undefined;
  now: () => number;
}): SqlProgram<void> {
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
}

/**
 * Deletes the sessions last updated before `before` (when not null), or
 * expired at `now` (with `expired`), with their messages and tool results;
 * answers their ids.
 *
 * @example
 * const { sessionIds } = yield* purgeSessions({ before: Date.now() - 30 * 86_400_000, expired: false, now: Date.now() });
 */
export function* purgeSessions({
  before,
  expired,
  now,
}: {
  before: number | null;
  expired: boolean;
  now: number;
}): SqlProgram<{ sessionIds: readonly string[] }> {
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
}
