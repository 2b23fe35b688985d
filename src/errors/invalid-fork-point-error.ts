import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.invalid_fork_point';
const symbol = Symbol.for(marker);

/**
 * A session cannot be forked at the message given: the point is out of
 * range, or it would separate an assistant message's tool calls from their
 * tool messages. Names the nearest points that work. Nothing was written.
 *
 * @example
 * throw new InvalidForkPointError({ sessionId: 's1', atMessage: 3, messageCount: 6, nearestBefore: 2, nearestAfter: 5 });
 * // message: "cannot fork session s1 at message 3: message 3 would separate an assistant message's
 * //   tool calls from their tool messages; fork at 2 or 5 instead"
 */
export class InvalidForkPointError extends ArbiterError {
  readonly code = 'invalid_fork_point' as const;
  readonly [symbol] = true;
  readonly sessionId: string;
  readonly atMessage: number;
  /** How many messages the session has: valid points are 0 to this. */
  readonly messageCount: number;
  /** The closest valid fork point below `atMessage`, if any. */
  readonly nearestBefore: number | undefined;
  /** The closest valid fork point above `atMessage`, if any. */
  readonly nearestAfter: number | undefined;

  constructor({
    sessionId,
    atMessage,
    messageCount,
    nearestBefore,
    nearestAfter,
  }: {
    sessionId: string;
    atMessage: number;
    messageCount: number;
    nearestBefore?: number | undefined;
    nearestAfter?: number | undefined;
  }) {
    const why =
      !Number.isInteger(atMessage) || atMessage < 0 || atMessage > messageCount
        ? `it has ${messageCount} messages, so --at must be 0 to ${messageCount}`
        : `message ${atMessage} would separate an assistant message's tool calls from their tool messages`;
    const options = [nearestBefore, nearestAfter].filter((index) => index !== undefined);
    super(
      `cannot fork session ${sessionId} at message ${atMessage}: ${why}${
        options.length === 0 ? '' : `; fork at ${options.join(' or ')} instead`
      }`,
    );
    this.sessionId = sessionId;
    this.atMessage = atMessage;
    this.messageCount = messageCount;
    this.nearestBefore = nearestBefore;
    this.nearestAfter = nearestAfter;
  }

  static override isInstance(error: unknown): error is InvalidForkPointError {
    return ArbiterError.hasMarker(error, marker);
  }
}
