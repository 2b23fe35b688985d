/** Waits at least `ms` milliseconds unless `signal` aborts first. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * Resolves after at least `ms` milliseconds (timers may fire a millisecond
 * early, so the deadline is checked against the monotonic clock); rejects
 * with `signal.reason` as soon as the signal aborts (at once when it already
 * has), so nobody waits out a backoff for a run that was cancelled.
 *
 * @example
 * await abortableSleep(500, controller.signal);
 */
export const abortableSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const deadline = performance.now() + Math.max(0, ms);
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const wait = () => {
      const remaining = deadline - performance.now();
      if (remaining <= 0) {
        signal?.removeEventListener('abort', onAbort);
        resolve();
        return;
      }
      timer = setTimeout(wait, Math.ceil(remaining));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    wait();
  });
