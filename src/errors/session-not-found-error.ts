import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.session_not_found';
const symbol = Symbol.for(marker);

/**
 * The session named does not exist (or was deleted). Nothing was written.
 * The server answers it with 404; the CLI exits 1 or 2 as for any other
 * request it cannot do.
 *
 * @example
 * throw new SessionNotFoundError({ sessionId: 's1' });
 * // message: "session s1 does not exist"
 */
export class SessionNotFoundError extends ArbiterError {
  readonly code = 'session_not_found' as const;
  readonly [symbol] = true;
  readonly sessionId: string;

  constructor({ sessionId }: { sessionId: string }) {
    super(`session ${sessionId} does not exist`);
    this.sessionId = sessionId;
  }

  static override isInstance(error: unknown): error is SessionNotFoundError {
    return ArbiterError.hasMarker(error, marker);
  }
}
