import type { DurableSteps } from '../core/durable-steps.js';
import { timeOrderedId } from '../util/time-ordered-id.js';

/**
 * Arbiter's own durable path as a `DurableSteps`: a step runs as it is
 * (the run's journal records its outcome and a resumed run reads it back),
 * the clock is `Date.now`, ids are time-ordered, and a signal is never
 * awaited in process: a run waiting for a person stops with
 * `awaiting_approval`, and the decision resumes it wherever its lease is
 * claimed next. `runAgent` takes this path without calling it at all when no
 * `steps` are given, so the default costs nothing per step.
 *
 * @example
 * await runAgent({ model, tools, messages, journal, steps: arbiterSteps });
 */
export const arbiterSteps: DurableSteps = {
  step: (_name, run) => run(),
  now: () => Date.now(),
  newId: () => timeOrderedId(),
  waitForSignal: () => undefined,
};
