import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.retryable_tool';
const symbol = Symbol.for(marker);

/**
 * Raised by a tool when the model can fix the call by changing its
 * arguments: the order does not exist, the date is out of range. The message
 * goes back to the model as the tool's result, with an invitation to retry.
 * Write the message for the model: which field, what is expected, an example.
 * A message that quotes a third party (an upstream body, a partner's error
 * text) says so with `untrusted` (`true`, or the source's name as people
 * should read it): the conversation then counts as holding untrusted
 * content, and egress calls wait for a person. A tool that declares
 * `untrustedOutput` has every error of its own counted so anyway.
 *
 * @example
 * throw new RetryableToolError({
 *   code: 'order_not_found',
 *   message: 'No order SO20269999 was found for this customer. Check the number with the customer.',
 *   field: 'order_id',
 * });
 * throw new RetryableToolError({ code: 'carrier_refused', message: carrierBody, untrusted: 'the carrier' });
 */
export class RetryableToolError extends ArbiterError {
  readonly code: string;
  readonly [symbol] = true;
  readonly field: string | undefined;
  readonly retryable = true as const;
  /** Set when the message quotes a third party: `true`, or the source's name. */
  readonly untrusted: string | true | undefined;

  constructor({
    code,
    message,
    field,
    untrusted,
    cause,
  }: {
    code: string;
    message: string;
    field?: string;
    untrusted?: string | true;
    cause?: unknown;
  }) {
    super(message, { cause });
    this.code = code;
    this.field = field;
    this.untrusted = untrusted;
  }

  static override isInstance(error: unknown): error is RetryableToolError {
    return ArbiterError.hasMarker(error, marker);
  }
}
