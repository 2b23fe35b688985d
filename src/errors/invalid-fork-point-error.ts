import { ArbiterError } from './arbiter-error.js';

const marker = Symbol.for('arbiter.error.invalid_fork_point');

/**
 * A session cannot be forked at the message given: the point is out of
 * range, or it would separate an assistant message's tool calls from their
 * tool messages. Names the nearest points that work. Nothing was written.
 *
 * @example
 * throw new InvalidForkPointError({ sessionId: 's1', atMessage: 3, nearestBefore: 2, nearestAfter: 5, message: '…' });
 */
export class InvalidForkPointError extends ArbiterError {
  readonly code = 'invalid_fork_point' as const;
  readonly [marker] = true;
  readonly sessionId: string;
  readonly atMessage: number;
  /** The closest valid fork point below `atMessage`, if any. */
  readonly nearestBefore: number | undefined;
  /** The closest valid fork point above `atMessage`, if any. */
  readonly nearestAfter: number | undefined;

  constructor({
    sessionId,
    atMessage,
    nearestBefore,
    nearestAfter,
    message,
  }: {
    sessionId: string;
    atMessage: number;
    nearestBefore?: number | undefined;
    nearestAfter?: number | undefined;
    message: string;
  }) {
    super(message);
    this.sessionId = sessionId;
    this.atMessage = atMessage;
    this.nearestBefore = nearestBefore;
    this.nearestAfter = nearestAfter;
  }

  static override isInstance(value: unknown): value is InvalidForkPointError {
    return typeof value === 'object' && value !== null && marker in value;
  }
}
