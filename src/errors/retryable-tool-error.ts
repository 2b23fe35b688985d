import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.retryable_tool';
const symbol = Symbol.for(marker);

/**
 * Raised by a tool when the model can fix the call by changing its
 * arguments: the order does not exist, the date is out of range. The message
 * goes back to the model as the tool's result, with an invitation to retry.
 * Write the message for the model: which field, what is expected, an example.
 *
 * @example
 * throw new RetryableToolError({
 *   code: 'order_not_found',
 *   message: 'No order SO20269999 was found for this customer. Check the number with the customer.',
 *   field: 'order_id',
 * });
 */
export class RetryableToolError extends ArbiterError {
  readonly code: string;
  readonly [symbol] = true;
  readonly field: string | undefined;
  readonly retryable = true as const;

  constructor({ code, message, field, cause }: { code: string; message: string; field?: string; cause?: unknown }) {
    super(message, { cause });
    this.code = code;
    this.field = field;
  }

  static override isInstance(error: unknown): error is RetryableToolError {
    return ArbiterError.hasMarker(error, marker);
  }
}
