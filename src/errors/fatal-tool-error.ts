import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.fatal_tool';
const symbol = Symbol.for(marker);

/**
 * Raised by a tool when the call is refused and no change of arguments can
 * help: the order already shipped, the caller lacks the permission. The
 * model is told once, with no invitation to retry. A message that quotes a
 * third party says so with `untrusted`, as for `RetryableToolError`.
 *
 * @example
 * throw new FatalToolError({
 *   code: 'order_already_shipped',
 *   message: 'Order SO20260901 has shipped and can no longer be cancelled.',
 * });
 * throw new FatalToolError({ code: 'payment_declined', message: gatewayBody, untrusted: 'the payment gateway' });
 */
export class FatalToolError extends ArbiterError {
  readonly code: string;
  readonly [symbol] = true;
  readonly retryable = false as const;
  /** Set when the message quotes a third party: `true`, or the source's name. */
  readonly untrusted: string | true | undefined;

  constructor({
    code,
    message,
    untrusted,
    cause,
  }: {
    code: string;
    message: string;
    untrusted?: string | true;
    cause?: unknown;
  }) {
    super(message, { cause });
    this.code = code;
    this.untrusted = untrusted;
  }

  static override isInstance(error: unknown): error is FatalToolError {
    return ArbiterError.hasMarker(error, marker);
  }
}
