import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.infrastructure';
const symbol = Symbol.for(marker);

/**
 * Something outside the model's reach failed (database down, upstream 503,
 * a bug in a tool). The run stops with `run:error`; the model is not asked
 * to retry, and this error's details never reach model-facing text.
 *
 * @example
 * throw new InfrastructureError({ message: 'tool "query_order" threw', toolName: 'query_order', cause: error });
 */
export class InfrastructureError extends ArbiterError {
  readonly code = 'infrastructure_failure' as const;
  readonly [symbol] = true;
  readonly toolName: string | undefined;

  constructor({ message, toolName, cause }: { message: string; toolName?: string; cause?: unknown }) {
    super(message, { cause });
    this.toolName = toolName;
  }

  static override isInstance(error: unknown): error is InfrastructureError {
    return ArbiterError.hasMarker(error, marker);
  }
}
