import { ArbiterError } from './arbiter-error.js';

const marker = Symbol.for('arbiter.error.infrastructure');

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
  readonly [marker] = true;
  readonly toolName: string | undefined;

  constructor({ message, toolName, cause }: { message: string; toolName?: string; cause?: unknown }) {
    super(message, { cause });
    this.toolName = toolName;
  }

  static override isInstance(value: unknown): value is InfrastructureError {
    return typeof value === 'object' && value !== null && marker in value;
  }
}
