import { type Ingress, rpc, type VirtualObjectDefinition } from '@restatedev/restate-sdk-clients';
import type { DurableRunInput, DurableRunSummary } from './run-in-engine.js';

/** The session object's handlers, as a client sees them. */
type SessionHandlers = { run: (context: unknown, input: DurableRunInput) => Promise<DurableRunSummary> };
/** The approvals object's handlers, as a client sees them. */
type ApprovalHandlers = { resume: (context: unknown) => Promise<void> };

/** What a process that runs no handler (arbiter's API, an operator's command) does with arbiter's Restate runs. */
export interface RestateRunClient {
  /** Starts a run on its session's object, the run id as the invocation's idempotency key: starting it again is the same run. */
  start(input: DurableRunInput): Promise<string>;
  /** Waits for the run (attached through its idempotency key) and returns its summary. */
  result(input: DurableRunInput): Promise<DurableRunSummary>;
  /**
   * Tells a run waiting for approval that none of its approvals is pending
   * any more: arbiter's approval decision calls it (`resumeRun`) after it
   * checked who may approve and recorded the decision.
   */
  resumeRun(runId: string): Promise<void>;
}

/**
 * Arbiter's Restate runs seen from outside the workers, through Restate's
 * ingress: start a run as an invocation of its session's virtual object
 * keyed by arbiter's run id, wait for its result, resolve a decided
 * approval's awakeable.
 *
 * @example
 * const runs = restateRunClient({ ingress: clients.connect({ url: 'http://127.0.0.1:8080' }) });
 * await runs.start({ runId, sessionId, principal, messages });
 */
export function restateRunClient({
  ingress,
  sessionObject = 'arbiterSession',
  approvalsObject = 'arbiterApprovals',
}: {
  ingress: Ingress;
  sessionObject?: string;
  approvalsObject?: string;
}): RestateRunClient {
  const session: VirtualObjectDefinition<string, SessionHandlers> = { name: sessionObject };
  const approvals: VirtualObjectDefinition<string, ApprovalHandlers> = { name: approvalsObject };
  return {
    start: async (input) => {
      await ingress
        .objectSendClient(session, input.sessionId)
        .run(input, rpc.sendOpts({ idempotencyKey: input.runId }));
      return input.runId;
    },
    result: async (input) =>
      await ingress.objectClient(session, input.sessionId).run(input, rpc.opts({ idempotencyKey: input.runId })),
    resumeRun: async (runId) => {
      await ingress.objectSendClient(approvals, runId).resume();
    },
  };
}
