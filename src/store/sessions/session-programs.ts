/**
 * The steps `SqlSessionStore` and its journal share, as programs for the
 * dialect port: read a session whole, read or lock its row, write its
 * messages, commit a run's step.
 *
 * @module
 */
import type { ChatMessage } from '../../core/chat-message.js';
import type { StepCommit } from '../../core/run-journal.js';
import { SessionNotFoundError } from '../../errors/session-not-found-error.js';
import { type SessionRow, toSession } from '../session-rows.js';
import type { EndRunRequest, Session } from '../session-store.js';
import { dialect, rows, run, type SqlProgram, type SqlStatement, type SqlValue } from '../sql/sql-program.js';
import { messageJson } from './message-json.js';
import { messagesPerInsert, sessionStatements as statements } from './session-statements.js';
import { stepCommitConflict, stepCommitCounters } from './session-writes.js';

/**
 * The session with its messages, read in one statement (one snapshot), or
 * undefined when there is none.
 *
 * @example
 * const session = port.run(loadSession('s1'));
 */
export function* loadSession(sessionId: string): SqlProgram<Session | undefined> {
  const [row] = yield* rows<SessionRow & { messages: string | string[] }>(statements.load, [sessionId]);
  if (row === undefined) return undefined;
  // PostgreSQL answers a text array; SQLite, which has none, the same list as JSON.
  const messages = typeof row.messages === 'string' ? (JSON.parse(row.messages) as string[]) : row.messages;
  return toSession(row, messages);
}

/**
 * The session's row by `statement` (plain, or locked for the rest of the
 * transaction), as `Row` (the columns `statement` reads);
 * `SessionNotFoundError` when there is none.
 *
 * @example
 * const row = yield* existingRow<LockedSessionRow>(sessionId, statements.lockRow);
 */
export function* existingRow<Row = SessionRow>(
  sessionId: string,
  statement: SqlStatement = statements.row,
): SqlProgram<Row> {
  const [row] = yield* rows<Row>(statement, [sessionId]);
  if (row === undefined) throw new SessionNotFoundError({ sessionId });
  return row;
}

/**
 * Writes `messages` at positions `from`, `from + 1`, …: one statement per
 * `messagesPerInsert` of them (a step appends one or two: the answer and a
 * tool's result), none for none.
 *
 * @example
 * yield* insertMessages({ sessionId, messages, from: row.message_count, runId, now });
 */
export function* insertMessages({
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
  for (let start = 0; start < messages.length; start += messagesPerInsert) {
    yield* insertMessagesFrom(sessionId, messages, from, runId, now, start);
  }
}

/**
 * The one statement of `insertMessages` that writes `messages[start]` and up
 * to `messagesPerInsert - 1` after it. Positional parameters: `commitStep`
 * runs it once per step, and neither an object of its arguments nor a
 * program of its own is made for it (issue 48: a generator and its
 * registers per step commit).
 */
function insertMessagesFrom(
  sessionId: string,
  messages: readonly ChatMessage[],
  from: number,
  runId: string | undefined,
  now: number,
  start: number,
): SqlProgram<number> {
  const count = Math.min(messagesPerInsert, messages.length - start);
  const values: SqlValue[] = [sessionId, runId ?? null, now];
  for (let index = start; index < start + count; index += 1) {
    values.push(from + index, messageJson(messages[index] as ChatMessage));
  }
  return run(statements.insertMessages[count - 1] as SqlStatement, values);
}

/** The columns of a session's row a versioned write reads (`sessionStatements.lockRow`). */
export type LockedSessionRow = Pick<
  SessionRow,
  'session_id' | 'active_run_id' | 'message_count' | 'version' | 'slots' | 'ttl_ms'
>;

/** What a step commit left: where the journal's next commit must land, and whether the session has a TTL. */
export interface CommittedStep {
  readonly messageCount: number;
  readonly hasTtl: boolean;
}

/** What `commitStep` writes, and where. */
export interface CommitStepRequest {
  readonly sessionId: string;
  readonly commit: StepCommit;
  /** Where the run's messages must be (a fence), or undefined for wherever they are. */
  readonly expected: number | undefined;
  /** Whether the session has a TTL, or undefined when not known yet (a journal's first commit). */
  readonly hasTtl: boolean | undefined;
  readonly now: number;
  /** PostgreSQL: the update and the messages in one statement (`commitStepWithMessages`). */
  readonly oneStatement?: boolean;
}

/**
 * Writes one step of a run. The session row is updated first, only while
 * the run is still its active run and, when `expected` is given, its
 * messages are where the journal expects them: no read before the write,
 * and on PostgreSQL the row's lock is the update's own. Only when that
 * update finds nothing is the row read, to say why (`SessionConflictError`,
 * `SessionNotFoundError`). Then the step's messages are written after the
 * count the update left.
 *
 * `hasTtl` picks the update's shape (see `sessionStatements.commitStep`);
 * undefined (a journal's first commit) tries the shape of a session without
 * a TTL when the fence is known, and otherwise (or when that changed
 * nothing) takes the shape that fits every session, reading back which one
 * it was.
 *
 * @example
 * const { messageCount, hasTtl } = yield* commitStep({ sessionId, commit, expected, hasTtl, now: Date.now() });
 */
export function* commitStep({
  sessionId,
  commit,
  expected,
  hasTtl,
  now,
  oneStatement = false,
}: CommitStepRequest): SqlProgram<CommittedStep> {
  const { cost, lastSeq } = stepCommitCounters(commit);
  const { runId, steps, usage } = commit;
  const appended = commit.appended.length;
  const values: SqlValue[] = [
    appended,
    steps,
    usage.inputTokens,
    usage.outputTokens,
    cost ?? null,
    usage.cachedInputTokens ?? 0,
    lastSeq ?? null,
    now,
    sessionId,
    runId,
    expected ?? null,
  ];
  if (appended > 0 && oneStatement) {
    // One statement, one round trip: the update and the messages at the positions it leaves.
    const [row] = yield* rows<{ message_count: number; has_ttl: unknown }>(statements.commitStepWithMessages, [
      ...values,
      commit.appended.map(messageJson),
    ]);
    if (row === undefined) throw yield* commitConflict({ sessionId, runId, expected });
    return { messageCount: row.message_count, hasTtl: Boolean(row.has_ttl) };
  }
  let committed: CommittedStep;
  if (
    hasTtl === undefined &&
    expected !== undefined &&
    (yield* run(statements.commitStep.firstWithoutTtl, values)) > 0
  ) {
    committed = { messageCount: expected + appended, hasTtl: false };
  } else if (hasTtl === undefined) {
    const [row] = yield* rows<{ message_count: number; has_ttl: unknown }>(statements.commitStep.first, values);
    if (row === undefined) throw yield* commitConflict({ sessionId, runId, expected });
    committed = { messageCount: row.message_count, hasTtl: Boolean(row.has_ttl) };
  } else {
    const shapes = hasTtl ? statements.commitStep.ttl : statements.commitStep.noTtl;
    if (expected === undefined) {
      const [row] = yield* rows<{ message_count: number }>(shapes.unfenced, values);
      if (row === undefined) throw yield* commitConflict({ sessionId, runId, expected });
      committed = { messageCount: row.message_count, hasTtl };
    } else {
      // Fenced: the count it leaves is known, so only whether the row changed matters.
      if ((yield* run(shapes.fenced, values)) === 0) throw yield* commitConflict({ sessionId, runId, expected });
      committed = { messageCount: expected + appended, hasTtl };
    }
  }
  // `insertMessages`'s statements as this program's own: no second program per step.
  const from = committed.messageCount - appended;
  for (let start = 0; start < appended; start += messagesPerInsert) {
    yield* insertMessagesFrom(sessionId, commit.appended, from, runId, now, start);
  }
  return committed;
}

/**
 * Ends run `runId` of session `sessionId` (`SessionStore.endRun`), or
 * changes nothing when it is not the session's active run. PostgreSQL runs
 * one statement. SQLite ends a session without a TTL without setting
 * `expires_at` (its index's page), and only when that changes nothing runs
 * the statement for any session.
 *
 * @example
 * yield* endRunSteps({ sessionId, runId, status: 'idle', lastSeq: 12, now: Date.now() });
 */
export function* endRunSteps({
  sessionId,
  runId,
  status,
  lastSeq,
  now,
}: EndRunRequest & { now: number }): SqlProgram<void> {
  const values = [now, status, lastSeq, sessionId, runId];
  if ((yield* dialect()) === 'postgres') yield* run(statements.endRun.any, values);
  else if ((yield* run(statements.endRun.noTtl, values)) === 0) yield* run(statements.endRun.any, values);
}

/**
 * The answer of a run (`StepCommit.endsRun`) committed, then the run ended
 * as `endRun` with status `idle` would, in the same transaction: the run is
 * its session's active run, or the commit was refused before this.
 *
 * @example
 * const committed = yield* commitAnswerAndEndRun({ sessionId, commit, expected, hasTtl, now: Date.now() });
 */
export function* commitAnswerAndEndRun(request: CommitStepRequest): SqlProgram<CommittedStep> {
  const committed = yield* commitStep(request);
  const { sessionId, commit, now } = request;
  yield* endRunSteps({ sessionId, runId: commit.runId, status: 'idle', lastSeq: commit.lastSeq ?? 0, now });
  return committed;
}

/** Why a step commit found nothing to update: the session is gone, another run is active, or its messages moved. */
function* commitConflict({
  sessionId,
  runId,
  expected,
}: {
  sessionId: string;
  runId: string;
  expected: number | undefined;
}): SqlProgram<Error> {
  const row = yield* existingRow(sessionId);
  return stepCommitConflict({ sessionId, row, runId, expected });
}
