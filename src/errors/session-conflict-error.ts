import { ArbiterError } from './arbiter-error.js';

const marker = Symbol.for('arbiter.error.session_conflict');

/**
 * A write to a session was based on a version someone else already
 * replaced, or a run was started while another is active. Nothing was
 * written.
 *
 * @example
 * throw new SessionConflictError({ sessionId: 's1', message: 'session s1 is at version 8, not 7' });
 */
export class SessionConflictError extends ArbiterError {
  readonly code = 'session_conflict' as const;
  readonly [marker] = true;
  readonly sessionId: string;
  readonly activeRunId: string | undefined;

  constructor({ sessionId, message, activeRunId }: { sessionId: string; message: string; activeRunId?: string }) {
    super(message);
    this.sessionId = sessionId;
    this.activeRunId = activeRunId;
  }

  static override isInstance(value: unknown): value is SessionConflictError {
    return typeof value === 'object' && value !== null && marker in value;
  }
}
