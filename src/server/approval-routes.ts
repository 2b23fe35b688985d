import { Hono } from 'hono';
import { HttpError } from '../errors/http-error.js';
import { decideApproval, requireApprover } from './decide-approval.js';
import { optionalChoice, readJsonBody } from './read-json-body.js';
import type { ServerDependencies, ServerEnv } from './server-env.js';

/** The longest `reason` an approver may give. */
export const maxReasonLength = 500;

export { fourEyesRule } from './decide-approval.js';

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
