import type { DurableSteps } from '../core/durable-steps.js';
import type { RunRuntime } from './run-runtime.js';

/** What an engine records for one step: its result, and where the run's event numbering stood after it. */
interface RecordedStep<Result> {
  readonly result: Result;
  readonly lastSeq: number;
  /** The tool's failures in a row after a tool step, so the brake counts the same on replay. */
  readonly failures?: number;
}

/**
 * Runs one step of the run through the engine's `DurableSteps`: a model
 * turn (`model:<step>`) or a validated, gated tool execution
 * (`tool:<toolCallId>`). The engine records the result with the seq of the
 * run's last event and, for a tool, its failures in a row; on replay the
 * recorded result comes back without running the step, and the event
 * numbering and the brake are moved to where they stood after it, so the
 * replayed run continues exactly as the first one did. Only called when the
 * run has `steps`: arbiter's own path runs its steps directly.
 *
 * @example
 * const response = await durableStep({ runtime, steps, name: `model:${step}`, run: () => model.generate(request) });
 */
export async function durableStep<Result>({
  runtime,
  steps,
  name,
  tool,
  run,
}: {
  runtime: RunRuntime;
  steps: DurableSteps;
  /** Stable across replays: `model:3`, `tool:call_1`. */
  name: string;
  /** The tool a tool step runs, whose failures in a row are recorded with the result. */
  tool?: string;
  run: () => Promise<Result>;
}): Promise<Result> {
  const { emitter, brakes } = runtime;
  const recorded = await steps.step<RecordedStep<Result>>(name, async () => {
    if (steps.publishedSeq !== undefined) {
      // An attempt cut short by a crash may have published events: this one numbers on after them.
      const published = await steps.publishedSeq();
      if (published > emitter.lastSeq) emitter.advanceTo?.(published);
    }
    const result = await run();
    return tool === undefined
      ? { result, lastSeq: emitter.lastSeq }
      : { result, lastSeq: emitter.lastSeq, failures: brakes.failuresOf(tool) };
  });
  if (recorded.lastSeq > emitter.lastSeq) emitter.advanceTo?.(recorded.lastSeq);
  if (tool !== undefined && recorded.failures !== undefined) brakes.restoreFailures(tool, recorded.failures);
  return recorded.result;
}
