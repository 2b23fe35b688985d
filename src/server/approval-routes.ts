import { Hono } from 'hono';
import { HttpError } from '../errors/http-error.js';
import { decideApproval, requireApprover } from './decide-approval.js';
import { optionalChoice, readJsonBody } from './read-json-body.js';
import type { ServerDependencies, ServerEnv } from './server-env.js';

/** The longest `reason` an approver may give. */
export const maxReasonLength = 500;

export { fourEyesRule } from './decide-approval.js';

/**
 * `GET /v1/approvals` (the tenant's pending approvals, for approvers) and
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

  /**
   * `GET /v1/approvals`: an approver's inbox, the approvals of his tenant
   * that wait for a person, oldest first, each with the session it was
   * asked in (how an approver opens the conversation: `GET
   * /v1/sessions/:id`, or a chat or AG-UI thread by that id).
   */
  routes.get('/', async (c) => {
    const principal = c.get('principal');
    requireApprover(principal);
    const pending = await dependencies.approvals.listApprovals({ status: 'pending' });
    const runs = new Map<string, boolean>();
    const mine = [];
    for (const approval of pending) {
      let visible = runs.get(approval.runId);
      if (visible === undefined) {
        const run = await dependencies.runs.find(approval.runId);
        visible = run?.tenantId === principal.tenantId;
        runs.set(approval.runId, visible);
      }
      if (!visible) continue;
      mine.push({
        approvalId: approval.approvalId,
        runId: approval.runId,
        sessionId: approval.sessionId ?? null,
        tool: approval.tool,
        arguments: approval.arguments,
        rule: approval.rule,
        reason: approval.reason,
        createdAt: new Date(approval.createdAt).toISOString(),
        expiresAt: new Date(approval.expiresAt).toISOString(),
      });
    }
    return c.json({ approvals: mine });
  });

  routes.post('/:id', async (c) => {
    const principal = c.get('principal');
    requireApprover(principal);
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
      principal,
      approvalId: c.req.param('id'),
      decision,
      reason: typeof reason === 'string' ? reason : undefined,
    });
    return c.json(decided, 202);
  });

  return routes;
}
