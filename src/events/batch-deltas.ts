import type { Mutable } from '../util/mutable.js';
import type { AgentEvent, AgentEventOf } from './agent-event.js';
import type { EventListener, ListenerErrorHandler } from './event-bus.js';

/** A listener that holds `model:delta` text back for a time window. */
export interface BatchedListener {
  (event: AgentEvent): void | Promise<void>;
  /** Delivers every delta held back now; resolves when the wrapped listener has handled them. */
  flush(): Promise<void>;
  /** Stops the timer and forgets held-back text. */
  dispose(): void;
}

/** A copy this wrapper owns, extended in place as fragments arrive. */
type Delta = Mutable<AgentEventOf<'model:delta'>>;

/**
 * Wraps a listener so that `model:delta` events reach it at most once per
 * window per run: fragments arriving within `windowMs` are merged into one
 * delta carrying the last fragment's seq. Any other event of the run first
 * flushes that run's held text, so order is kept; the wrapped listener is
 * never called twice at once. Twenty deltas a second instead of hundreds is
 * what makes an SSE stream survive a weak connection.
 *
 * @example
 * const toBrowser = batchDeltas((event) => sse.send(project(event)), { windowMs: 50 });
 * bus.subscribe(toBrowser);
 */
export function batchDeltas(
  listener: EventListener,
  { windowMs = 50, onError = () => {} }: { windowMs?: number; onError?: ListenerErrorHandler } = {},
): BatchedListener {
  const held = new Map<string, Delta>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let chain: Promise<void> = Promise.resolve();

  const deliver = (event: AgentEvent): Promise<void> => {
    const delivered = chain.then(() => listener(event));
    chain = delivered.then(
      () => {},
      () => {},
    );
    return delivered;
  };
  const release = (runId: string): void => {
    const delta = held.get(runId);
    if (delta === undefined) return;
    held.delete(runId);
    deliver(delta).catch((error: unknown) => onError(error, delta));
  };
  const releaseAll = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    for (const runId of [...held.keys()]) release(runId);
  };

  const batched = (event: AgentEvent): void | Promise<void> => {
    if (event.type !== 'model:delta') {
      release(event.runId);
      if (held.size === 0 && timer !== undefined) {
        clearTimeout(timer);
        timer = undefined;
      }
      return deliver(event);
    }
    if (windowMs <= 0) return deliver(event);
    const earlier = held.get(event.runId);
    if (earlier !== undefined && earlier.step !== event.step) release(event.runId);
    // Held copies are built field by field and then extended in place: spreading per fragment is slow in V8.
    const previous = held.get(event.runId);
    if (previous === undefined) {
      held.set(event.runId, {
        runId: event.runId,
        seq: event.seq,
        at: event.at,
        type: event.type,
        step: event.step,
        text: event.text,
      });
    } else {
      previous.text += event.text;
      previous.seq = event.seq;
      previous.at = event.at;
    }
    timer ??= setTimeout(releaseAll, windowMs);
    return undefined;
  };
  return Object.assign(batched, {
    flush: async () => {
      releaseAll();
      await chain;
    },
    dispose: () => {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      held.clear();
    },
  });
}
