import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.fatal_tool';
const symbol = Symbol.for(marker);

/**
 * Raised by a tool when the call is refused and no change of arguments can
 * help: the order already shipped, the caller lacks the permission. The
 * model is told once, with no invitation to retry.
 *
 * @example
 * throw new FatalToolError({
 *   code: 'order_already_shipped',
 *   message: 'Order SO20260901 has shipped and can no longer be cancelled.',
 * });
 */
export class FatalToolError extends ArbiterError {
  readonly code: string;
  readonly [symbol] = true;
  readonly retryable = false as const;

  constructor({ code, message, cause }: { code: string; message: string; cause?: unknown }) {
    super(message, { cause });
    this.code = code;
  }

  static override isInstance(error: unknown): error is FatalToolError {
    return ArbiterError.hasMarker(error, marker);
  }
}
