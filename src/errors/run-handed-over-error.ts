import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.run_handed_over';
const symbol = Symbol.for(marker);

/**
 * The run stopped at a committed step without ending, because its process
 * is handing its runs over (a node shutting down for a deploy): no
 * `run:end`, the session keeps it as its active run, and a resume on any
 * node continues it from there (`runSession({ resume: true })`).
 *
 * @example
 * if (RunHandedOverError.isInstance(error)) return; // another node continues the run
 */
export class RunHandedOverError extends ArbiterError {
  readonly code = 'run_handed_over' as const;
  readonly [symbol] = true;
  readonly runId: string;
  /** The steps the run had committed when it stopped. */
  readonly steps: number;

  constructor({ runId, steps }: { runId: string; steps: number }) {
    super(`run ${runId} stopped after step ${steps} to be continued elsewhere`);
    this.runId = runId;
    this.steps = steps;
  }

  static override isInstance(error: unknown): error is RunHandedOverError {
    return ArbiterError.hasMarker(error, marker);
  }
}
