/** What a run without a caller's signal detaches when it ends. */
const detachNothing = (): void => {};

/**
 * One abort signal for everything a run starts (model calls, tools), fired
 * by the caller's signal or by the run's deadline, remembering which.
 *
 * @example
 * const control = new RunControl({ signal, timeLimitMs: 30_000 });
 * try { await model.generate({ messages, tools, signal: control.signal }); } finally { control.dispose(); }
 */
export class RunControl {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout | undefined;
  readonly #detach: () => void;
  #reason: 'aborted' | 'deadline' | undefined;

  constructor({ signal, timeLimitMs }: { signal?: AbortSignal | undefined; timeLimitMs?: number | undefined }) {
    if (signal === undefined) {
      this.#detach = detachNothing;
    } else {
      const onAbort = () => this.#stop('aborted');
      if (signal.aborted) this.#stop('aborted');
      signal.addEventListener('abort', onAbort, { once: true });
      this.#detach = () => signal.removeEventListener('abort', onAbort);
    }
    if (timeLimitMs !== undefined && Number.isFinite(timeLimitMs)) {
      this.#timer = setTimeout(() => this.#stop('deadline'), Math.max(0, timeLimitMs));
      this.#timer.unref();
    }
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** `aborted` (the caller), `deadline` (time ran out), or undefined while running. */
  get reason(): 'aborted' | 'deadline' | undefined {
    return this.#reason;
  }

  dispose(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#detach();
  }

  #stop(reason: 'aborted' | 'deadline'): void {
    if (this.#reason !== undefined) return;
    this.#reason = reason;
    this.#controller.abort(new DOMException(`run stopped: ${reason}`, 'AbortError'));
  }
}
