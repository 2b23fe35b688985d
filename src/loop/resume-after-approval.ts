import type { ApprovalRecord } from '../gate/approval-record.js';
import type { ApprovalStore } from '../store/backend.js';
import type { SessionStore } from '../store/session-store.js';
import type { RunAgentOptions, RunResult } from './run-agent.js';
import { runSession } from './run-session.js';

/** What recording a decision led to. */
export type ResumeAfterApprovalResult =
  /** Other approvals of the same run still wait for a person; the run stays suspended. */
  | { readonly status: 'waiting'; readonly approval: ApprovalRecord; readonly pending: number }
  /** Every approval of the run was decided, and the run went on. */
  | { readonly status: 'resumed'; readonly approval: ApprovalRecord; readonly result: RunResult }
  /** The decision is recorded but there is no suspended run to continue (no session, or it moved on). */
  | { readonly status: 'not_resumable'; readonly approval: ApprovalRecord; readonly reason: string };

export type ResumeAfterApprovalOptions = Omit<
  RunAgentOptions,
  'messages' | 'sessionId' | 'runId' | 'resume' | 'journal' | 'approvals'
> & {
  readonly sessions: SessionStore;
  /** Either backend's approvals (`backend.approvals`, `SqliteApprovalBroker`, `PostgresApprovalBroker`). */
  readonly broker: ApprovalStore;
  readonly approvalId: string;
  readonly decision: 'approve' | 'reject';
  readonly approver: string;
  readonly reason?: string;
};

/**
 * Records a person's decision and, once no approval of that run is still
 * pending, resumes the run from its session (`runSession({ resume: true })`)
 * with the same broker, so each decided call runs (or is refused) exactly
 * once. Works in any process that opens the same store: the decision, the
 * session and the recorded results all live there. Throws
 * `ApprovalResolutionError` when the approval is unknown, already decided or
 * expired.
 *
 * The approval ids come with the run that stopped (`result.pendingApprovals`)
 * or from the store (`broker.listApprovals({ status: 'pending' })`); the
 * broker is either backend's `approvals`. docs/gate.md shows the whole flow.
 *
 * @example
 * const { sessions, approvals } = backend; // openSqliteBackend(…) or await openPostgresBackend(…)
 * for (const { approvalId } of result.pendingApprovals) {
 *   const outcome = await resumeAfterApproval({
 *     sessions, broker: approvals, approvalId, decision: 'approve', approver: 'li.wei',
 *     model, tools: registry, principal, gate, idempotency, audit,
 *   });
 *   if (outcome.status === 'waiting') console.log(`still waiting for ${outcome.pending} approvals`);
 * }
 */
export async function resumeAfterApproval(options: ResumeAfterApprovalOptions): Promise<ResumeAfterApprovalResult> {
  const { sessions, broker, approvalId, decision, approver, reason, ...runOptions } = options;
  const approval = await broker.resolveApproval({
    approvalId,
    decision,
    approver,
    ...(reason === undefined ? {} : { reason }),
  });
  const pending = await broker.countPending({ runId: approval.runId });
  if (pending > 0) return { status: 'waiting', approval, pending };
  if (approval.sessionId === undefined) {
    return { status: 'not_resumable', approval, reason: 'the run was not kept in a session' };
  }
  const session = await sessions.load(approval.sessionId);
  if (session?.activeRun?.runId !== approval.runId) {
    return { status: 'not_resumable', approval, reason: `run ${approval.runId} is no longer suspended` };
  }
  if (session.status !== 'awaiting_approval') {
    // Its process has not suspended it yet: resuming now would run it twice at once.
    return {
      status: 'not_resumable',
      approval,
      reason: `run ${approval.runId} is still running; resume its session once it is suspended`,
    };
  }
  const result = await runSession({
    ...runOptions,
    sessions,
    sessionId: approval.sessionId,
    resume: true,
    approvals: broker,
  });
  return { status: 'resumed', approval, result };
}
