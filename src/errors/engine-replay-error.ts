import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.engine_replay';
const symbol = Symbol.for(marker);

/**
 * A run replayed from its recorded steps asked for something else than what
 * was recorded at that point (another step name, a clock read where a step
 * was recorded): the loop's code changed in a way that does not replay the
 * runs already under way, or the record is missing its input. Retrying
 * cannot help; an engine adapter fails the step for good.
 *
 * @example
 * if (EngineReplayError.isInstance(error)) throw ApplicationFailure.nonRetryable(error.message, error.code);
 */
export class EngineReplayError extends ArbiterError {
  readonly code = 'engine_replay' as const;
  readonly [symbol] = true;
  readonly runId: string;
  /** The position in the run's record where replay went astray. */
  readonly position: number;
  /** What was recorded there (`step:model:2`, `now`), or `nothing`. */
  readonly recorded: string;
  /** What the replayed run asked for there. */
  readonly asked: string;

  constructor({
    runId,
    position,
    recorded,
    asked,
  }: {
    runId: string;
    position: number;
    recorded: string;
    asked: string;
  }) {
    super(`run ${runId} replays differently at record ${position}: recorded ${recorded}, asked ${asked}`);
    this.runId = runId;
    this.position = position;
    this.recorded = recorded;
    this.asked = asked;
  }

  static override isInstance(error: unknown): error is EngineReplayError {
    return ArbiterError.hasMarker(error, marker);
  }
}
