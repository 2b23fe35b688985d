import { Hono } from 'hono';
import type { Principal } from '../core/principal.js';
import { ApprovalResolutionError } from '../errors/approval-resolution-error.js';
import { HttpError } from '../errors/http-error.js';
import type { ApprovalRecord } from '../store/sqlite/sqlite-approval-broker.js';
import { optionalChoice, readJsonBody } from './read-json-body.js';
import { approverRole, notFound, type ServerDependencies, type ServerEnv } from './server-env.js';

const maxReasonLength = 500;

/** The audit rule (and the 403's code) of a refused self-approval. */
export const fourEyesRule = 'four_eyes';

/**
 * `POST /v1/approvals/:id` `{ "decision": "approve" | "reject", "reason"? }`,
 * only for the `approver` role of the run's tenant (another tenant's
 * approval does not exist for him: 404). Four eyes: an approver may not
 * decide an approval requested in a session he owns (same tenant and
 * user), unless the server allows it (`allowSelfApproval`); that is a 403
 * `self_approval`, and the attempt is audited (decision `denied`, rule
 * `four_eyes`, the approver who tried, outcome `self_approval_refused`)
 * while the approval stays pending for someone else. Records the decision;
 * once no approval of the run is pending any more, resumes the run in the
 * background, and its events continue on the run's stream (the semantics of
 * `resumeAfterApproval`, with the run handed to the run manager). 202
 * `{ approvalId, decision, runId, pending, resumed }`.
 *
 * @example
 * app.route('/v1/approvals', approvalRoutes(dependencies));
 */
export function approvalRoutes(dependencies: ServerDependencies): Hono<ServerEnv> {
  const routes = new Hono<ServerEnv>();

  routes.post('/:id', async (c) => {
    if (!c.get('principal').roles.includes(approverRole)) throw approverRoleNeeded();
    const body = await readJsonBody(c);
    const decision = optionalChoice(body, 'decision', ['approve', 'reject'] as const);
    if (decision === undefined) {
      throw new HttpError({
        status: 400,
        reason: 'invalid_body',
        message: '"decision" must be "approve" or "reject"',
        details: { field: 'decision' },
      });
    }
    const reason = body.reason;
    if (reason !== undefined && (typeof reason !== 'string' || reason.length > maxReasonLength)) {
      throw new HttpError({
        status: 400,
        reason: 'invalid_body',
        message: `"reason" must be a string of at most ${maxReasonLength} characters`,
        details: { field: 'reason' },
      });
    }
    const decided = await decideApproval(dependencies, {
      principal: c.get('principal'),
      approvalId: c.req.param('id'),
      decision,
      ...(typeof reason === 'string' ? { reason } : {}),
    });
    return c.json(decided, 202);
  });

  return routes;
}

/** What `decideApproval` did. */
export interface DecidedApproval {
  readonly approvalId: string;
  readonly decision: ApprovalRecord['status'];
  readonly runId: string;
  /** Approvals of the run still waiting for a person. */
  readonly pending: number;
  /** True when this decision was the run's last pending one, and the run was resumed. */
  readonly resumed: boolean;
}

/** The longest `reason` a decision may give. */
export const maxApprovalReasonLength = maxReasonLength;

/**
 * One approval decided by `principal`, under the rules of
 * `POST /v1/approvals/:id` (whose body this is, shared with the protocol
 * adapters that decide approvals, such as AG-UI's resume): the `approver`
 * role, the run's tenant (404 otherwise), four eyes (403 `self_approval`,
 * audited), 409 when already decided or expired; resumes the run once none
 * of its approvals is pending.
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
  }: { principal: Principal; approvalId: string; decision: 'approve' | 'reject'; reason?: string },
): Promise<DecidedApproval> {
  const { approvals, runs, manager, sessions, audit, tools, allowSelfApproval } = dependencies;
  if (!principal.roles.includes(approverRole)) throw approverRoleNeeded();

  /** Whether `principal` owns the session the approval was requested in, or made the request. */
  const ownRequest = async (runPrincipal: Principal, sessionId: string): Promise<boolean> => {
    const same = (owner: { tenantId: string | undefined; userId: string | undefined }) =>
      owner.tenantId === principal.tenantId && owner.userId === principal.userId;
    if (same(runPrincipal)) return true;
    const session = await sessions.load(sessionId);
    return session !== undefined && same({ tenantId: session.tenantId, userId: session.userId });
  };

  const existing = await approvals.getApproval(approvalId);
  const run = existing === undefined ? undefined : await runs.find(existing.runId);
  if (existing === undefined || run === undefined || run.tenantId !== principal.tenantId) {
    throw notFound('approval', approvalId);
  }
  if (!allowSelfApproval && (await ownRequest(run.principal, run.sessionId))) {
    await audit.append({
      at: Date.now(),
      sessionId: existing.sessionId,
      runId: existing.runId,
      step: existing.step,
      toolCallId: existing.toolCallId,
      tool: existing.tool,
      sideEffect: tools.get(existing.tool)?.definition.sideEffect ?? 'irreversible',
      argumentsHash: existing.argumentsHash,
      arguments: existing.arguments,
      decision: 'denied',
      rule: fourEyesRule,
      approver: principal.userId,
      outcome: 'self_approval_refused',
      durationMs: 0,
    });
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
  if (pending === 0) await (dependencies.resumeRun ?? ((runId: string) => manager.resume({ runId })))(run.runId);
  return { approvalId, decision: approval.status, runId: run.runId, pending, resumed: pending === 0 };
}

function approverRoleNeeded(): HttpError {
  return new HttpError({
    status: 403,
    reason: 'forbidden',
    message: `deciding approvals needs the "${approverRole}" role`,
  });
}
