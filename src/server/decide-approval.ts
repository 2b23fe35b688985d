import { isExternalRunId } from '../adapters/external-run.js';
import type { Principal } from '../core/principal.js';
import { ApprovalResolutionError } from '../errors/approval-resolution-error.js';
import { HttpError } from '../errors/http-error.js';
import { fourEyesRule, isOwnRequest, selfApprovalRefusal } from '../gate/four-eyes.js';
import { isMcpRunId } from '../mcp/server/mcp-run.js';
import type { ApprovalRecord } from '../store/sqlite/sqlite-approval-broker.js';
import { approverRole, notFound, type ServerDependencies } from './server-env.js';

// The rule is the gate's, shared with `arbiter approve`; named here too for the server's modules.
export { fourEyesRule, isOwnRequest } from '../gate/four-eyes.js';

/** What `decideApproval` did: the decision recorded, and whether the run was resumed. */
export interface ApprovalDecided {
  readonly approvalId: string;
  readonly decision: ApprovalRecord['status'];
  readonly runId: string;
  /** Approvals of the run still pending. */
  readonly pending: number;
  /** True when none is pending any more and the run was handed back to run. */
  readonly resumed: boolean;
}

/**
 * Decides one approval for `principal`, under the rules of
 * `POST /v1/approvals/:id` (every protocol that decides approvals goes
 * through here): the `approver` role of the run's tenant only (another
 * tenant's approval is a 404); four eyes — not in a session the approver
 * owns, nor on a run he started, unless `allowSelfApproval` — refused with
 * 403 `self_approval` and audited (decision `denied`, rule `four_eyes`,
 * outcome `self_approval_refused`) while the approval stays pending; an
 * expired or decided approval is a 409. The broker records the decision
 * against the call's arguments hash; once none of the run's approvals is
 * pending, the run is resumed (`resumeRun`, else the manager here).
 * `expect` lets a caller bind the decision to what it showed (the session,
 * the tool call): a mismatch is a 404, as for an approval that is not there.
 *
 * @example
 * const decided = await decideApproval(dependencies, { principal, approvalId, decision: 'approve' });
 */
export async function decideApproval(
  dependencies: ServerDependencies,
  {
    principal,
    approvalId,
    decision,
    reason,
    expect,
  }: {
    principal: Principal;
    approvalId: string;
    decision: 'approve' | 'reject';
    reason?: string | undefined;
    /** The session and tool call the caller believes the approval is for. */
    expect?: { readonly sessionId?: string; readonly toolCallId?: string };
  },
): Promise<ApprovalDecided> {
  const { approvals, runs, manager, sessions, audit, tools, allowSelfApproval } = dependencies;
  requireApprover(principal);
  const existing = await approvals.getApproval(approvalId);
  const run = existing === undefined ? undefined : await runs.find(existing.runId);
  if (
    existing === undefined ||
    run === undefined ||
    run.tenantId !== principal.tenantId ||
    (expect?.sessionId !== undefined && run.sessionId !== expect.sessionId) ||
    (expect?.toolCallId !== undefined && existing.toolCallId !== expect.toolCallId)
  ) {
    throw notFound('approval', approvalId);
  }
  if (!allowSelfApproval && (await isOwnRequest({ principal, run, sessions }))) {
    await audit.append(
      selfApprovalRefusal({
        approval: existing,
        approver: principal.userId,
        sideEffect: tools.get(existing.tool)?.definition.sideEffect,
        at: Date.now(),
      }),
    );
    throw new HttpError({
      status: 403,
      reason: 'self_approval',
      message:
        `approval ${approvalId} was requested in your own session; ` +
        'under the four-eyes rule another approver of your tenant must decide it',
      details: { approvalId, rule: fourEyesRule },
    });
  }

  let approval: ApprovalRecord;
  try {
    approval = await approvals.resolveApproval({
      approvalId,
      decision,
      approver: principal.userId,
      ...(reason !== undefined && reason.trim() !== '' ? { reason: reason.trim() } : {}),
    });
  } catch (error) {
    if (!ApprovalResolutionError.isInstance(error)) throw error;
    if (error.failure === 'not_found') throw notFound('approval', approvalId);
    throw new HttpError({
      status: 409,
      reason: error.failure === 'expired' ? 'approval_expired' : 'already_decided',
      message: error.message,
      details: { status: error.status ?? null },
    });
  }
  const pending = await approvals.countPending({ runId: run.runId });
  // An MCP caller's run, or another framework's loop, has nothing to resume: its client or loop repeats the call.
  const resumed = pending === 0 && !isMcpRunId(run.runId) && !isExternalRunId(run.runId);
  if (resumed) await (dependencies.resumeRun ?? ((runId: string) => manager.resume({ runId })))(run.runId);
  return { approvalId, decision: approval.status, runId: run.runId, pending, resumed };
}

/**
 * Throws the 403 for a caller without the `approver` role.
 *
 * @example
 * requireApprover(c.get('principal'));
 */
export function requireApprover(principal: Principal): void {
  if (!principal.roles.includes(approverRole)) {
    throw new HttpError({
      status: 403,
      reason: 'forbidden',
      message: `deciding approvals needs the "${approverRole}" role`,
    });
  }
}
