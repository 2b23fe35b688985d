import { fileURLToPath } from 'node:url';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { EngineReplayError } from '../errors/engine-replay-error.js';
import { advanceRun } from './advance-run.js';
import type { EngineStepRecords } from './engine-step-records.js';
import type { EngineAgentOptions } from './run-in-engine.js';
import type { ArbiterActivities } from './temporal-workflow.js';

/**
 * The workflow code of arbiter's runs (`arbiterRun`), for the worker's
 * `workflowsPath`: Temporal bundles it into its sandbox.
 */
export const temporalWorkflowsPath: string = fileURLToPath(new URL('./temporal-workflow.js', import.meta.url));

export interface TemporalActivitiesOptions {
  /** Everything a run needs that is not JSON (model, tools, gate, approvals, idempotency, audit, event log), once per worker. */
  readonly agent: EngineAgentOptions;
  /** Where each run's steps are recorded in arbiter's store: the workflow's history holds only their positions. */
  readonly records: EngineStepRecords;
  /** How often a step in progress tells Temporal its worker is alive. Default 5 s (the workflow's heartbeat timeout is 30 s). */
  readonly heartbeatMs?: number;
}

/**
 * Arbiter's activities for a Temporal worker: `arbiterAdvance` runs the next
 * step of a run (a model turn, or a validated, gated tool execution) after
 * handing back every recorded one from arbiter's store, records its result
 * there, and returns the workflow a reference to it (`advanceRun`). While
 * the step runs it heartbeats, so a killed worker's step is given to
 * another attempt after the heartbeat timeout, where arbiter's idempotency
 * claim turns it into one effect (reconcile for an unknown outcome). A run
 * whose recorded steps no longer replay (a deploy changed the loop's steps)
 * fails its step for good (`engine_replay`) instead of retrying.
 *
 * @example
 * const worker = await Worker.create({
 *   connection,
 *   taskQueue: 'arbiter',
 *   workflowsPath: temporalWorkflowsPath,
 *   activities: temporalActivities({ agent: { model, tools, gate, approvals, idempotency, audit, log, runs }, records }),
 * });
 * await worker.run();
 */
export function temporalActivities({
  agent,
  records,
  heartbeatMs = 5000,
}: TemporalActivitiesOptions): ArbiterActivities {
  return {
    arbiterAdvance: async (request) => {
      const context = Context.current();
      context.heartbeat();
      const beat = setInterval(() => context.heartbeat(), heartbeatMs);
      try {
        return await advanceRun({ engine: 'temporal', agent, records, request });
      } catch (error) {
        if (EngineReplayError.isInstance(error)) throw ApplicationFailure.nonRetryable(error.message, error.code);
        throw error;
      } finally {
        clearInterval(beat);
      }
    },
  };
}
