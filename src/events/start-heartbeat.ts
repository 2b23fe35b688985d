import type { RunEmitter } from './event-bus.js';

/**
 * Emits a `heartbeat` on the run every `intervalMs` while the run is alive,
 * so a screen can tell a slow run from a dead one: when heartbeats stop and
 * no `run:end` came, the process or the connection is gone. Returns the
 * function that stops it; call it before the run's last event. The timer
 * never keeps the process alive by itself.
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
  const timer = setInterval(() => emitter.emit({ type: 'heartbeat' }), intervalMs);
  timer.unref?.();
  return () => clearInterval(timer);
}
