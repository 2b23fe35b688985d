import { ArbiterError } from './arbiter-error.js';

const marker = Symbol.for('arbiter.error.usage');

/**
 * A command line that cannot be run as given (unknown flag value, missing option).
 *
 * @example
 * throw new UsageError({ message: '--lang must be en or zh-CN, got "fr"' });
 */
export class UsageError extends ArbiterError {
  readonly code = 'usage' as const;
  readonly [marker] = true;

  constructor({ message }: { message: string }) {
    super(message);
  }

  static override isInstance(value: unknown): value is UsageError {
    return typeof value === 'object' && value !== null && marker in value;
  }
}
