import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.ambiguous_id';
const symbol = Symbol.for(marker);

/**
 * An id given by its first characters matches more than one: nothing was
 * done. The message names every candidate, so the person can give more
 * characters.
 *
 * @example
 * throw new AmbiguousIdError({ kind: 'session', prefix: '01a24c56', candidates: ['01a24c56-7b2e-…', '01a24c56-9d01-…'] });
 * // message: 'session id "01a24c56" is ambiguous: 2 sessions start with it: 01a24c56-7b2e-…, 01a24c56-9d01-…; give more of it'
 */
export class AmbiguousIdError extends ArbiterError {
  readonly code = 'ambiguous_id' as const;
  readonly [symbol] = true;
  /** What the id names: `session`, `run`. */
  readonly kind: string;
  readonly prefix: string;
  readonly candidates: readonly string[];

  constructor({ kind, prefix, candidates }: { kind: string; prefix: string; candidates: readonly string[] }) {
    super(
      `${kind} id "${prefix}" is ambiguous: ${candidates.length} ${kind}s start with it: ${candidates.join(', ')}; give more of it`,
    );
    this.kind = kind;
    this.prefix = prefix;
    this.candidates = candidates;
  }

  static override isInstance(error: unknown): error is AmbiguousIdError {
    return ArbiterError.hasMarker(error, marker);
  }
}
