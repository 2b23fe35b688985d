/**
 * The rules every session write follows, the same on every backend: which
 * version a write may land on, who may append, when a run begins or
 * resumes, where a step commit must land, how slots merge, where a fork may
 * cut and which sessions a purge takes. The dialects only say the SQL that
 * reads and writes the rows.
 *
 * @module
 */
import type { ChatMessage } from '../../core/chat-message.js';
import { isCleanCut } from '../../core/message-units.js';
import type { StepCommit } from '../../core/run-journal.js';
import { SessionConflictError } from '../../errors/session-conflict-error.js';
import { parseSlots, type SessionRow } from '../session-rows.js';
import type { BegunRun } from '../session-store.js';
import { forkPointError } from './fork-point-error.js';

const dayMs = 86_400_000;

/**
 * Refuses a write based on a version the session has moved on from
 * (`SessionConflictError`, kind `version`); without `expectedVersion` every
 * version is the one read.
 *
 * @example
 * checkVersion({ sessionId, row, expectedVersion });
 */
export function checkVersion({
  sessionId,
  row,
  expectedVersion,
}: {
  sessionId: string;
  row: Pick<SessionRow, 'version'>;
  expectedVersion: number | undefined;
}): void {
  if (expectedVersion === undefined || row.version === expectedVersion) return;
  throw new SessionConflictError({ sessionId, conflict: { kind: 'version', version: row.version, expectedVersion } });
}

/**
 * Refuses messages from outside the session's active run: they would land
 * between its tool calls and their answers. Without an active run anyone
 * may append.
 *
 * @example
 * checkAppend({ sessionId, row, runId });
 */
export function checkAppend({
  sessionId,
  row,
  runId,
}: {
  sessionId: string;
  row: Pick<SessionRow, 'active_run_id'>;
  runId: string | undefined;
}): void {
  const active = row.active_run_id;
  if (active !== null && active !== runId) {
    throw new SessionConflictError({ sessionId, conflict: { kind: 'messages_from_run', activeRunId: active } });
  }
}

/**
 * What `beginRun` does to the session as read: resumes `runId` when it is
 * already the active run, begins it when there is none, and refuses it
 * (`SessionConflictError`, kind `run_active`) while another run is active.
 * The run's messages land after those the session holds.
 *
 * @example
 * const begun = begunRun({ sessionId, runId, row });
 * if (begun.resumed) resume(); else begin();
 */
export function begunRun({
  sessionId,
  runId,
  row,
}: {
  sessionId: string;
  runId: string;
  row: Pick<SessionRow, 'active_run_id' | 'message_count'>;
}): BegunRun {
  const active = row.active_run_id;
  if (active !== null && active !== runId) {
    throw new SessionConflictError({ sessionId, conflict: { kind: 'run_active', activeRunId: active } });
  }
  return { sessionId, runId, resumed: active === runId, messageOffset: row.message_count };
}

/**
 * Why a step commit did not fit the session as read: another run took it
 * over (`run_replaced`), or another process moved its messages
 * (`message_count`).
 *
 * @example
 * throw stepCommitConflict({ sessionId, row, runId, expected });
 */
export function stepCommitConflict({
  sessionId,
  row,
  runId,
  expected,
}: {
  sessionId: string;
  row: Pick<SessionRow, 'active_run_id' | 'message_count'>;
  runId: string;
  expected: number | undefined;
}): SessionConflictError {
  if (row.active_run_id !== runId) {
    return new SessionConflictError({
      sessionId,
      conflict: { kind: 'run_replaced', runId, activeRunId: row.active_run_id ?? undefined },
    });
  }
  return new SessionConflictError({
    sessionId,
    conflict: {
      kind: 'message_count',
      runId,
      messageCount: row.message_count,
      expectedMessageCount: expected ?? row.message_count,
    },
  });
}

/**
 * The loop's cost and last event number so far, once its step commits
 * carry them; undefined leaves the run's as they are.
 *
 * @example
 * const { cost, lastSeq } = stepCommitCounters(commit);
 */
export function stepCommitCounters(commit: StepCommit): { cost: number | undefined; lastSeq: number | undefined } {
  return {
    cost: 'cost' in commit && typeof commit.cost === 'number' ? commit.cost : undefined,
    lastSeq: 'lastSeq' in commit && typeof commit.lastSeq === 'number' ? commit.lastSeq : undefined,
  };
}

/**
 * The session's slots with `changes` merged in: a value of `undefined`
 * removes the slot; any name, `__proto__` included, is a plain own slot.
 *
 * @example
 * mergeSlots(row, { reason: undefined, amount_cents: 4550 });
 */
export function mergeSlots(
  row: Pick<SessionRow, 'slots'>,
  changes: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const merged = { ...parseSlots(row) };
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) delete merged[name];
    else Object.defineProperty(merged, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return merged;
}

/**
 * Where a fork cuts the session's messages: `atMessage`, or after the last.
 * Refuses (`InvalidForkPointError`, naming the nearest points that work) a
 * cut out of range or between tool calls and their answers.
 *
 * @example
 * const cut = forkCut({ sessionId, messages, atMessage });
 */
export function forkCut({
  sessionId,
  messages,
  atMessage,
}: {
  sessionId: string;
  messages: readonly ChatMessage[];
  atMessage: number | undefined;
}): number {
  const cut = atMessage ?? messages.length;
  if (!isCleanCut(messages, cut)) throw forkPointError({ sessionId, messages, cut });
  return cut;
}

/**
 * The `updated_at` before which `purge` takes a session, or null when it
 * is not asked to purge idle sessions.
 *
 * @example
 * purgeCutoff({ olderThanDays: 30, now }); // now - 30 days
 */
export function purgeCutoff({ olderThanDays, now }: { olderThanDays: number | undefined; now: number }): number | null {
  return olderThanDays === undefined ? null : now - olderThanDays * dayMs;
}
