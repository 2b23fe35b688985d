import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.session_conflict';
const symbol = Symbol.for(marker);

/** What the write or run collided with, with the facts its message names. */
export type SessionConflict =
  /** A run was started while another is active (`activeRunId` undefined while it is still starting). */
  | { kind: 'run_active'; activeRunId: string | undefined }
  /** Messages were appended from outside the run that is active. */
  | { kind: 'messages_from_run'; activeRunId: string }
  /** A run wrote a step after another run took the session over. */
  | { kind: 'run_replaced'; runId: string; activeRunId: string | undefined }
  /** A run wrote a step on top of messages another process wrote to it. */
  | { kind: 'message_count'; runId: string; messageCount: number; expectedMessageCount: number }
  /** A write was based on a version someone else already replaced. */
  | { kind: 'version'; version: number; expectedVersion: number }
  /** A resume was asked for, and the session has no run to resume. */
  | { kind: 'no_run_to_resume' };

function describe(sessionId: string, conflict: SessionConflict): string {
  switch (conflict.kind) {
    case 'run_active':
      return `session ${sessionId} already has run ${conflict.activeRunId ?? '(starting)'} in progress`;
    case 'messages_from_run':
      return `session ${sessionId} has run ${conflict.activeRunId} in progress; its messages come from that run`;
    case 'run_replaced':
      return `run ${conflict.runId} is no longer the active run of session ${sessionId}`;
    case 'message_count':
      return `session ${sessionId} has ${conflict.messageCount} messages, not ${conflict.expectedMessageCount}: another process wrote to run ${conflict.runId}`;
    case 'version':
      return `session ${sessionId} is at version ${conflict.version}, not ${conflict.expectedVersion}`;
    case 'no_run_to_resume':
      return `session ${sessionId} has no run to resume`;
  }
}

/**
 * A write to a session was based on a version someone else already
 * replaced, or a run was started while another is active. Nothing was
 * written. (A session that does not exist is a `SessionNotFoundError`.)
 *
 * @example
 * throw new SessionConflictError({ sessionId: 's1', conflict: { kind: 'version', version: 8, expectedVersion: 7 } });
 * // message: "session s1 is at version 8, not 7"
 */
export class SessionConflictError extends ArbiterError {
  readonly code = 'session_conflict' as const;
  readonly [symbol] = true;
  readonly sessionId: string;
  readonly conflict: SessionConflict;
  /** The run holding the session, when one does. */
  readonly activeRunId: string | undefined;

  constructor({ sessionId, conflict }: { sessionId: string; conflict: SessionConflict }) {
    super(describe(sessionId, conflict));
    this.sessionId = sessionId;
    this.conflict = conflict;
    this.activeRunId =
      conflict.kind === 'message_count' ? conflict.runId : 'activeRunId' in conflict ? conflict.activeRunId : undefined;
  }

  static override isInstance(error: unknown): error is SessionConflictError {
    return ArbiterError.hasMarker(error, marker);
  }
}
