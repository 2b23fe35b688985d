import type { RunEmitter } from './event-bus.js';

/** The runs beating at one interval, and the one timer that beats them all. */
interface Ticker {
  readonly emitters: Set<RunEmitter>;
  /** The `setInterval` the timer was made with: a test that installs fake timers gets a ticker of its own. */
  readonly madeWith: typeof setInterval;
  readonly timer: ReturnType<typeof setInterval>;
}

const tickers = new Map<number, Ticker>();

/**
 * Emits a `heartbeat` on the run every `intervalMs` while the run is alive,
 * so a screen can tell a slow run from a dead one: when heartbeats stop and
 * no `run:end` came, the process or the connection is gone. Returns the
 * function that stops it; call it before the run's last event. The timer
 * never keeps the process alive by itself.
 *
 * All runs with the same interval share one timer, which stops at its first
 * tick with no run left: a run neither starts nor clears a timer of its
 * own (a few microseconds at each end of every run, and one timer instead
 * of one per live run). A run's first heartbeat therefore comes within
 * `intervalMs` of its start, not exactly then; no two come further apart.
 *
 * @example
 * const stopHeartbeat = startHeartbeat({ emitter, intervalMs: 5_000 });
 * try {
 *   // ... the run ...
 * } finally {
 *   stopHeartbeat();
 * }
 */
export function startHeartbeat({
  emitter,
  intervalMs = 5_000,
}: {
  emitter: RunEmitter;
  intervalMs?: number;
}): () => void {
  if (!(intervalMs > 0) || !Number.isFinite(intervalMs)) return () => {};
  let ticker = tickers.get(intervalMs);
  if (ticker === undefined || ticker.madeWith !== setInterval) ticker = startTicker(intervalMs);
  const { emitters } = ticker;
  emitters.add(emitter);
  return () => {
    emitters.delete(emitter);
  };
}

function startTicker(intervalMs: number): Ticker {
  const emitters = new Set<RunEmitter>();
  const timer = setInterval(() => {
    if (emitters.size === 0) {
      clearInterval(timer);
      if (tickers.get(intervalMs) === ticker) tickers.delete(intervalMs);
      return;
    }
    for (const emitter of emitters) emitter.emit({ type: 'heartbeat' });
  }, intervalMs);
  timer.unref?.();
  const ticker: Ticker = { emitters, madeWith: setInterval, timer };
  tickers.set(intervalMs, ticker);
  return ticker;
}
