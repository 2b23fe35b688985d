import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { ApprovalSignal } from './run-durable-agent.js';
import type { DurableRunInput, DurableRunSummary } from './run-in-engine.js';
import type { ArbiterRunOptions } from './temporal-workflow.js';

/** What a process that runs no workflow (arbiter's API, an operator's command) does with arbiter's Temporal runs. */
export interface TemporalRunClient {
  /** Starts the run as the workflow whose id is the run id; starting a run id again (running or ended) starts nothing. */
  start(input: DurableRunInput): Promise<string>;
  /** Waits for the run's workflow to end and returns its summary. */
  result(runId: string): Promise<DurableRunSummary>;
  /**
   * Tells a run waiting for approval that none of its approvals is pending
   * any more (the `arbiter.approval` signal): arbiter's approval decision
   * calls it (`resumeRun`) after it checked who may approve and recorded
   * the decision, which the resumed run reads from arbiter's store.
   */
  resumeRun(runId: string): Promise<void>;
}

/**
 * Arbiter's Temporal runs seen from outside the workers, through a
 * Temporal `Client`: start a run (workflow `arbiterRun`, workflow id = run
 * id, a finished run id never reused), wait for its summary, signal a
 * decided approval.
 *
 * @example
 * const client = new Client({ connection: await Connection.connect({ address: 'localhost:7233' }) });
 * const runs = temporalRunClient({ client, taskQueue: 'arbiter' });
 * await runs.start({ runId, sessionId, principal, messages });
 */
export function temporalRunClient({
  client,
  taskQueue,
  workflowType = 'arbiterRun',
  runOptions = {},
}: {
  client: Client;
  /** The task queue arbiter's workers poll. */
  taskQueue: string;
  /** The workflow's name in the workers. Default `arbiterRun`. */
  workflowType?: string;
  /** How the run's steps are timed and retried (heartbeat timeout, step timeout). */
  runOptions?: ArbiterRunOptions;
}): TemporalRunClient {
  return {
    start: async (input) => {
      try {
        await client.workflow.start(workflowType, {
          taskQueue,
          workflowId: input.runId,
          args: [input, runOptions],
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
        });
      } catch (error) {
        // The run id ended already: it is the same run, and nothing starts again.
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
      return input.runId;
    },
    result: (runId) =>
      client.workflow.getHandle<(input: DurableRunInput) => Promise<DurableRunSummary>>(runId).result(),
    resumeRun: async (runId) => {
      const signal: ApprovalSignal = { runId };
      await client.workflow.getHandle(runId).signal('arbiter.approval', signal);
    },
  };
}
