import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.memory_fact';
const symbol = Symbol.for(marker);

/**
 * A fact the memory store refuses as given: an empty tenant, user or key, a
 * key or value too long, an expiry in the past. Nothing is stored.
 *
 * @example
 * throw new MemoryFactError({ field: 'key', message: 'a fact key is 1 to 100 characters, got 0' });
 */
export class MemoryFactError extends ArbiterError {
  readonly code = 'memory_fact_invalid' as const;
  readonly [symbol] = true;
  /** The field at fault: `tenantId`, `userId`, `key`, `value`, `expiresAt`. */
  readonly field: string;

  constructor({ field, message }: { field: string; message: string }) {
    super(message);
    this.field = field;
  }

  static override isInstance(error: unknown): error is MemoryFactError {
    return ArbiterError.hasMarker(error, marker);
  }
}
