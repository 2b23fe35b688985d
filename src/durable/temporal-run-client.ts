import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import type { ApprovalSignal } from './run-durable-agent.js';
import type { DurableRunInput, DurableRunSummary } from './run-in-engine.js';
import type { ArbiterRunOptions } from './temporal-workflow.js';

/** What a process that runs no workflow (arbiter's API, an operator's command) does with arbiter's Temporal runs. */
export interface TemporalRunClient {
  /**
   * Queues the run on its session's workflow, which runs it as the workflow
   * whose id is the run id once the session's run before it has ended;
   * queueing a run id again (queued, running or ended) runs it once.
   */
  start(input: DurableRunInput): Promise<string>;
  /** Waits for the run's workflow to start and end, and returns its summary. */
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
 * Temporal `Client`: queue a run on its session's workflow
 * (`arbiterSession`, one run of a session at a time, `signalWithStart`),
 * which runs it as the child workflow `arbiterRun` whose id is the run id;
 * wait for its summary; signal a decided approval.
 *
 * @example
 * const client = new Client({ connection: await Connection.connect({ address: 'localhost:7233' }) });
 * const runs = temporalRunClient({ client, taskQueue: 'arbiter' });
 * await runs.start({ runId, sessionId, principal, messages });
 */
export function temporalRunClient({
  client,
  taskQueue,
  runOptions = {},
  pollMs = 250,
}: {
  client: Client;
  /** The task queue arbiter's workers poll. */
  taskQueue: string;
  /** How the run's steps are timed and retried (heartbeat timeout, step timeout). */
  runOptions?: ArbiterRunOptions;
  /** How often `result` looks whether a queued run has started. Default 250 ms. */
  pollMs?: number;
}): TemporalRunClient {
  return {
    start: async (input) => {
      await client.workflow.signalWithStart('arbiterSession', {
        taskQueue,
        workflowId: `arbiter-session:${input.sessionId}`,
        args: [[], runOptions],
        signal: 'arbiter.enqueue',
        signalArgs: [input],
      });
      return input.runId;
    },
    result: async (runId) => {
      const handle = client.workflow.getHandle<(input: DurableRunInput) => Promise<DurableRunSummary>>(runId);
      for (;;) {
        try {
          return await handle.result();
        } catch (error) {
          // Queued behind the session's run before it: not started yet.
          if (!(error instanceof WorkflowNotFoundError)) throw error;
          await new Promise((resolve) => setTimeout(resolve, pollMs));
        }
      }
    },
    resumeRun: async (runId) => {
      const signal: ApprovalSignal = { runId };
      await client.workflow.getHandle(runId).signal('arbiter.approval', signal);
    },
  };
}
