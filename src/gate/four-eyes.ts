/**
 * Four eyes: an approver never decides his own request. One rule for every
 * way a decision is made: `POST /v1/approvals/:id` and the protocols that
 * decide through it (`decideApproval`), the desk's inbox that shows the
 * answer before anyone tries, and `arbiter approve` on the command line.
 *
 * @module
 */
import type { Awaitable } from '../core/awaitable.js';
import type { ApprovalRecord } from './approval-record.js';
import type { AuditEntry } from './audit-log.js';

/** The audit rule (and the 403's code) of a refused self-approval. */
export const fourEyesRule = 'four_eyes';

/** Someone who may have asked for an approval: a run's principal, a session's owner. */
export interface Requester {
  readonly tenantId: string | undefined;
  readonly userId: string | undefined;
}

/**
 * The four-eyes question: whether `principal` asked for the approvals of
 * `run` himself (he started the run, or owns the session it runs in), in
 * the same tenant. A run without a record of its principal (a run the
 * command line ran) is judged by its session's owner alone.
 *
 * @example
 * if (await isOwnRequest({ principal, run, sessions })) showWhyNot('four_eyes');
 */
export async function isOwnRequest({
  principal,
  run,
  sessions,
}: {
  /** Who decides: his user id, in the tenant he decides for (undefined: a store without tenants). */
  principal: { readonly tenantId: string | undefined; readonly userId: string };
  run: { readonly principal?: Requester | undefined; readonly sessionId: string | undefined };
  sessions: { load(sessionId: string): Awaitable<Requester | undefined> };
}): Promise<boolean> {
  const same = (owner: Requester) => owner.tenantId === principal.tenantId && owner.userId === principal.userId;
  if (run.principal !== undefined && same(run.principal)) return true;
  if (run.sessionId === undefined) return false;
  const session = await sessions.load(run.sessionId);
  return session !== undefined && same({ tenantId: session.tenantId, userId: session.userId });
}

/**
 * The audit row of a refused self-approval: decision `denied`, rule
 * `four_eyes`, outcome `self_approval_refused`, the refused approver named;
 * the approval itself stays pending for another approver.
 *
 * @example
 * await audit.append(selfApprovalRefusal({ approval, approver: principal.userId, sideEffect: 'irreversible', at: Date.now() }));
 */
export function selfApprovalRefusal({
  approval,
  approver,
  sideEffect,
  at,
}: {
  approval: ApprovalRecord;
  /** Who tried to decide, as recorded (the command line adds where from). */
  approver: string;
  /** The tool's, when the tool is known; else `irreversible`, the tier that asks a person. */
  sideEffect: AuditEntry['sideEffect'] | undefined;
  at: number;
}): AuditEntry {
  return {
    at,
    sessionId: approval.sessionId,
    runId: approval.runId,
    step: approval.step,
    toolCallId: approval.toolCallId,
    tool: approval.tool,
    sideEffect: sideEffect ?? 'irreversible',
    argumentsHash: approval.argumentsHash,
    arguments: approval.arguments,
    decision: 'denied',
    rule: fourEyesRule,
    approver,
    outcome: 'self_approval_refused',
    durationMs: 0,
  };
}
