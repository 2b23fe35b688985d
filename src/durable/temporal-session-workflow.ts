/**
 * A session of arbiter's runs as Temporal workflow code: one run of the
 * session at a time. Runs in Temporal's sandbox (imports only
 * `@temporalio/workflow` and types); exported to the worker through
 * `temporal-workflow.ts`.
 *
 * @module
 */
import { condition, continueAsNew, defineSignal, executeChild, setHandler, workflowInfo } from '@temporalio/workflow';
import type { DurableRunInput } from './run-in-engine.js';
import type { ArbiterRunOptions } from './temporal-workflow.js';

/** Queues a run on its session's workflow (`signalWithStart`: the session's workflow starts if it is not running). */
export const arbiterEnqueueSignal = defineSignal<[DurableRunInput]>('arbiter.enqueue');

/**
 * One session's runs, one at a time: each queued run (`arbiter.enqueue`)
 * runs as the child workflow `arbiterRun` whose id is its run id, and the
 * next starts once it has ended (completed, waiting past its deadline, or
 * failed). A run id queued twice, or already run, runs once; a run of
 * another session is ignored. The workflow ends once nothing is queued;
 * the next `signalWithStart` starts it again. Its history stays short: it
 * continues as new when Temporal suggests it.
 *
 * @example
 * await client.workflow.signalWithStart('arbiterSession', {
 *   workflowId: `arbiter-session:${input.sessionId}`, taskQueue: 'arbiter', args: [[], {}],
 *   signal: 'arbiter.enqueue', signalArgs: [input],
 * });
 */
export async function arbiterSession(
  queued: readonly DurableRunInput[] = [],
  options: ArbiterRunOptions = {},
): Promise<number> {
  const queue = [...queued];
  const seen = new Set(queue.map((input) => input.runId));
  const { workflowId } = workflowInfo();
  setHandler(arbiterEnqueueSignal, (input) => {
    // A run of another session is not this session's to run; a run id already queued or run runs once.
    if (`arbiter-session:${input.sessionId}` !== workflowId || seen.has(input.runId)) return;
    seen.add(input.runId);
    queue.push(input);
  });
  let ran = 0;
  for (;;) {
    if (queue.length === 0) {
      // Nothing queued once a run has ended: done. A run queued meanwhile keeps the workflow going: Temporal
      // refuses to complete a workflow past a signal it has not seen, and hands it the signal instead.
      if (ran > 0) return ran;
      // A fresh session's first run is the signal it was started with.
      await condition(() => queue.length > 0);
    }
    if (workflowInfo().continueAsNewSuggested) await continueAsNew<typeof arbiterSession>(queue, options);
    const input = queue.shift();
    if (input === undefined) continue;
    try {
      await executeChild('arbiterRun', {
        workflowId: input.runId,
        args: [input, options],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        parentClosePolicy: 'ABANDON',
      });
    } catch {
      // Already run (a duplicate start), or failed for good: either way the session's next run may start.
    }
    ran += 1;
  }
}
