import { type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';

/** The collector's pauses seen while recording, and how much of them fell in given spans of time. */
export interface GarbageCollections {
  /** Milliseconds of collection that started within the spans (`performance.now()` times). */
  within(spans: readonly { readonly startedAt: number; readonly endedAt: number }[]): number;
  stop(): void;
}

/**
 * Records V8's garbage-collection pauses (`gc` performance entries) from
 * now on. The entries arrive after the fact, so a measurement asks which
 * of them started within its own blocks once it is done: that places the
 * collector's work in the blocks it paused, whichever side's allocations
 * made it due.
 *
 * @example
 * const collections = recordGarbageCollections();
 * // … blocks …
 * const milliseconds = collections.within(paired.blocks.subject);
 * collections.stop();
 */
export function recordGarbageCollections(): GarbageCollections {
  const entries: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => {
    entries.push(...list.getEntries());
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    within: (spans) => {
      let milliseconds = 0;
      for (const entry of entries) {
        if (spans.some((span) => entry.startTime >= span.startedAt && entry.startTime < span.endedAt)) {
          milliseconds += entry.duration;
        }
      }
      return milliseconds;
    },
    stop: () => observer.disconnect(),
  };
}
