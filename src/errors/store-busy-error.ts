import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.store_busy';
const symbol = Symbol.for(marker);

/**
 * The database stayed locked by another connection for longer than a write
 * may wait (`waitedMs`). Nothing was written; the same write may succeed
 * later. The server answers it with 503 and `Retry-After`.
 *
 * @example
 * throw new StoreBusyError({ operation: 'beginRun', waitedMs: 2000, cause: sqliteError });
 */
export class StoreBusyError extends ArbiterError {
  readonly code = 'store_busy' as const;
  readonly [symbol] = true;
  /** The store operation that gave up, e.g. `create` or `beginRun`. */
  readonly operation: string;
  readonly waitedMs: number;

  constructor({ operation, waitedMs, cause }: { operation: string; waitedMs: number; cause?: unknown }) {
    super(`the database stayed locked for ${waitedMs} ms: ${operation} was not written`, { cause });
    this.operation = operation;
    this.waitedMs = waitedMs;
  }

  static override isInstance(error: unknown): error is StoreBusyError {
    return ArbiterError.hasMarker(error, marker);
  }
}
