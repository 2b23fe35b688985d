/**
 * Arbiter's run as Temporal workflow code. It runs in Temporal's workflow
 * sandbox (replayed, deterministic, no I/O), so it imports nothing but
 * `@temporalio/workflow` and types: the run advances one activity at a
 * time (`arbiterAdvance`: a model turn or a validated, gated tool
 * execution, decided by arbiter inside the activity), the approval is the
 * `arbiter.approval` signal with the deadline as a durable timer
 * (`condition(…, timeout)`), and what the history carries per step is a
 * reference into arbiter's store (run id, position, size), never a message
 * or a tool result. A session's runs go one at a time through the
 * session's workflow (`arbiterSession`), each run its child. Give this file to the worker as `workflowsPath`
 * (`temporalWorkflowsPath` from `@arbiter-runtime/core/temporal`).
 *
 * @module
 */
import {
  ApplicationFailure,
  condition,
  defineSignal,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { AdvanceRequest, RunAdvance } from './advance-run.js';
import type { DurableRunInput, DurableRunSummary } from './run-in-engine.js';

export { arbiterEnqueueSignal, arbiterSession } from './temporal-session-workflow.js';

/** The activities the workflow calls: `temporalActivities` builds them in the worker. */
export interface ArbiterActivities {
  arbiterAdvance(request: AdvanceRequest): Promise<RunAdvance>;
}

/** How the workflow's activities are timed and retried: the workflow's second argument, plain JSON. */
export interface ArbiterRunOptions {
  /** A worker that stops heartbeating for this long (killed, frozen) loses its step to another attempt. Default 30 s. */
  readonly heartbeatTimeoutMs?: number;
  /** The longest one step (a model turn, a tool) may take. Default one hour. */
  readonly stepTimeoutMs?: number;
  /** The longest wait between two attempts of a failing step. Default 60 s. */
  readonly maximumRetryIntervalMs?: number;
}

/** What the approval signal carries: only the run it is meant for; the decision stays in arbiter's store. Same as `ApprovalSignal`. */
interface ApprovalSignalPayload {
  readonly runId: string;
}

/** Arbiter's approval signal, `approvalSignalTopic` (kept as a literal: the sandbox loads no module of the loop). */
export const arbiterApprovalSignal = defineSignal<[ApprovalSignalPayload]>('arbiter.approval');

/**
 * One arbiter run: the workflow id is the run id. Advances the run until it
 * ends; where it waits for a person, waits for the approval signal until
 * the deadline arbiter set, then lets the next activity read the decision
 * from arbiter's store. A signal for another run id is ignored; a signal
 * with no decision behind it (forged, duplicate, early) only makes the run
 * look again and wait again.
 *
 * @example
 * await client.workflow.start(arbiterRun, { workflowId: runId, taskQueue: 'arbiter', args: [input, {}] });
 */
export async function arbiterRun(input: DurableRunInput, options: ArbiterRunOptions = {}): Promise<DurableRunSummary> {
  const { workflowId } = workflowInfo();
  if (input.runId !== workflowId)
    throw ApplicationFailure.nonRetryable(`the workflow id ${workflowId} is not the run id ${input.runId}`, 'run_id');
  const { arbiterAdvance } = proxyActivities<ArbiterActivities>({
    startToCloseTimeout: options.stepTimeoutMs ?? 60 * 60 * 1000,
    heartbeatTimeout: options.heartbeatTimeoutMs ?? 30_000,
    retry: {
      initialInterval: 1000,
      maximumInterval: options.maximumRetryIntervalMs ?? 60_000,
      nonRetryableErrorTypes: ['engine_replay'],
    },
  });
  let signals = 0;
  setHandler(arbiterApprovalSignal, (signal) => {
    if (signal?.runId === workflowId) signals += 1;
  });
  let request: AdvanceRequest = { runId: workflowId, input };
  for (;;) {
    const advance = await arbiterAdvance(request);
    if (advance.kind === 'done') return advance.summary;
    request = { runId: workflowId };
    if (advance.kind === 'wait') {
      const signalled = await condition(() => signals > 0, advance.timeoutMs);
      if (signalled) signals = 0;
      request = { runId: workflowId, wake: { position: advance.position, signalled } };
    }
  }
}
