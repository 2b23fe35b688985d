import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.usage';
const symbol = Symbol.for(marker);

/**
 * A command line that cannot be run as given (unknown flag value, missing option).
 *
 * @example
 * throw new UsageError({ message: '--lang must be en or zh-CN, got "fr"' });
 */
export class UsageError extends ArbiterError {
  readonly code = 'usage' as const;
  readonly [symbol] = true;

  constructor({ message }: { message: string }) {
    super(message);
  }

  static override isInstance(error: unknown): error is UsageError {
    return ArbiterError.hasMarker(error, marker);
  }
}
