import type { EventBus } from '../events/event-bus.js';
import { observeRunTrace, type RunObservation } from './run-observation.js';
import { TraceRecorder } from './trace-recorder.js';

export interface RunCollector {
  /** The finished runs kept, oldest first. */
  runs(): readonly RunObservation[];
  /** Stops listening; the runs kept stay readable. */
  stop(): void;
}

/**
 * Keeps an observation of each run that finishes on the bus (the last
 * `limit` of them), for a live `/metrics` endpoint or a report after a
 * batch of runs.
 *
 * @example
 * const collector = createRunCollector({ bus });
 * // later:
 * metricsToPrometheus(computeMetrics(collector.runs()));
 */
export function createRunCollector({ bus, limit = 1000 }: { bus: EventBus; limit?: number }): RunCollector {
  const kept: RunObservation[] = [];
  const recorder = new TraceRecorder({
    onRun: (run) => {
      const observation = observeRunTrace(run);
      if (observation === undefined) return;
      kept.push(observation);
      if (kept.length > limit) kept.splice(0, kept.length - limit);
    },
  });
  const unsubscribe = bus.subscribe((event) => recorder.record(event));
  return { runs: () => [...kept], stop: unsubscribe };
}
