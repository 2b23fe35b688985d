/**
 * The per-run counters behind two brakes: the same call asked for again and
 * again, and the same tool failing in a row.
 *
 * @example
 * const brakes = new CallBrakes({ maxIdenticalCalls: 2, maxConsecutiveFailures: 2 });
 * if (brakes.noteCall('query_order', canonicalJson(args)) > 2) refuse();
 */
export class CallBrakes {
  readonly maxIdenticalCalls: number;
  readonly maxConsecutiveFailures: number;
  /** Per tool, how often each canonical text was asked for: no `name + text` key built and hashed per call. */
  readonly #identicalCalls = new Map<string, Map<string, number>>();
  readonly #consecutiveFailures = new Map<string, number>();

  constructor({
    maxIdenticalCalls,
    maxConsecutiveFailures,
  }: { maxIdenticalCalls: number; maxConsecutiveFailures: number }) {
    this.maxIdenticalCalls = maxIdenticalCalls;
    this.maxConsecutiveFailures = maxConsecutiveFailures;
  }

  /**
   * Counts a call by (name, canonical JSON of its arguments, `canonicalJson(args)`: the caller serialises
   * once and hashes the same text); returns how often it has now been asked for.
   */
  noteCall(name: string, canonicalArguments: string): number {
    let calls = this.#identicalCalls.get(name);
    if (calls === undefined) {
      calls = new Map();
      this.#identicalCalls.set(name, calls);
    }
    const count = (calls.get(canonicalArguments) ?? 0) + 1;
    calls.set(canonicalArguments, count);
    return count;
  }

  /** Records a call's outcome; returns true when the tool has now failed too often in a row. */
  noteOutcome(name: string, ok: boolean): boolean {
    if (ok) {
      this.#consecutiveFailures.delete(name);
      return false;
    }
    const failures = (this.#consecutiveFailures.get(name) ?? 0) + 1;
    this.#consecutiveFailures.set(name, failures);
    return failures >= this.maxConsecutiveFailures;
  }

  /** The failures in a row of tool `name` so far, for a durable step to record with its result. */
  failuresOf(name: string): number {
    return this.#consecutiveFailures.get(name) ?? 0;
  }

  /** Sets the failures in a row of tool `name` to what a replayed durable step recorded. */
  restoreFailures(name: string, failures: number): void {
    if (failures === 0) this.#consecutiveFailures.delete(name);
    else this.#consecutiveFailures.set(name, failures);
  }
}
