import { ModelError } from '../errors/model-error.js';

interface Waiter {
  readonly grant: () => void;
}

/**
 * A limit on model calls in flight, shared by every run of a process. A
 * caller takes a slot for one HTTP call and gives it back when the call
 * ends; waiters are served first come, first served.
 *
 * When a provider answers 429, `reduce` halves the limit for a while (never
 * below 1) so the process backs off as a whole instead of every run hammering
 * on its own; the full limit comes back once the last reduction expires.
 * Calls already in flight are never interrupted: new ones just wait until
 * fewer than the lowered limit are running.
 *
 * @example
 * const semaphore = new ModelSemaphore({ limit: 4 });
 * const release = await semaphore.acquire({ signal });
 * try { return await model.generate(request); } finally { release(); }
 */
export class ModelSemaphore {
  #limit: number;
  #reducedLimit: number | undefined;
  #reducedUntil = 0;
  #restoreTimer: NodeJS.Timeout | undefined;
  #inFlight = 0;
  readonly #queue: Waiter[] = [];
  readonly #now: () => number;

  constructor({ limit = 8, now = Date.now }: { limit?: number; now?: () => number } = {}) {
    this.#limit = checkLimit(limit);
    this.#now = now;
  }

  /** The limit in force now: the configured one, or a lowered one after a 429. */
  get limit(): number {
    return Math.min(this.#limit, this.#reducedLimit ?? Number.POSITIVE_INFINITY);
  }

  /** Calls holding a slot. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Calls waiting for a slot. */
  get waiting(): number {
    return this.#queue.length;
  }

  /** Changes the configured limit (e.g. from the process's settings); a lowered limit stays lowered until it expires. */
  setLimit(limit: number): void {
    this.#limit = checkLimit(limit);
    this.#pump();
  }

  /**
   * Waits for a slot and returns the function that gives it back (calling it
   * twice is harmless). Rejects with `signal.reason` when the signal aborts
   * while waiting; no slot is taken then.
   */
  acquire({ signal }: { signal?: AbortSignal | undefined } = {}): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.#inFlight += 1;
          let released = false;
          resolve(() => {
            if (released) return;
            released = true;
            this.#inFlight -= 1;
            this.#pump();
          });
        },
      };
      const onAbort = () => {
        const position = this.#queue.indexOf(waiter);
        if (position >= 0) this.#queue.splice(position, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(waiter);
      this.#pump();
    });
  }

  /**
   * Halves the limit in force (at least 1) for `forMs` milliseconds from now,
   * extending any reduction already running. Returns the lowered limit.
   */
  reduce({ forMs }: { forMs: number }): number {
    this.#reducedLimit = Math.max(1, Math.floor(this.limit / 2));
    this.#reducedUntil = Math.max(this.#reducedUntil, this.#now() + Math.max(0, forMs));
    this.#scheduleRestore();
    return this.#reducedLimit;
  }

  #scheduleRestore(): void {
    clearTimeout(this.#restoreTimer);
    const remaining = this.#reducedUntil - this.#now();
    this.#restoreTimer = setTimeout(() => this.#restore(), Math.max(0, remaining));
    // A lowered limit alone must not keep the process alive.
    this.#restoreTimer.unref();
  }

  #restore(): void {
    if (this.#now() < this.#reducedUntil) {
      this.#scheduleRestore();
      return;
    }
    this.#restoreTimer = undefined;
    this.#reducedLimit = undefined;
    this.#pump();
  }

  #pump(): void {
    while (this.#inFlight < this.limit) {
      const next = this.#queue.shift();
      if (next === undefined) return;
      next.grant();
    }
  }
}

function checkLimit(limit: number): number {
  if (!(limit >= 1)) {
    throw new ModelError({
      kind: 'request',
      message: `the limit on model calls in flight must be at least 1, got ${limit}`,
    });
  }
  return limit === Number.POSITIVE_INFINITY ? limit : Math.floor(limit);
}

/**
 * The process-wide limit on model calls in flight (8 unless changed with
 * `setLimit`), used by every `ResilientModel` that is not given its own.
 *
 * @example
 * defaultModelSemaphore.setLimit(16);
 */
export const defaultModelSemaphore = new ModelSemaphore({ limit: 8 });
