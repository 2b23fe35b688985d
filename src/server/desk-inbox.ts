import type { Principal } from '../core/principal.js';
import { displayArguments } from '../events/sensitive-fields.js';
import { toolFieldPolicies } from '../events/tool-field-policies.js';
import type { ApprovalRecord } from '../gate/approval-record.js';
import { type FieldDisplay, shownFieldDisplays } from '../tools/field-display.js';
import { isOwnRequest } from './decide-approval.js';
import { type EarlierCall, findEarlierCall } from './desk-earlier-call.js';
import type { ServerDependencies } from './server-env.js';

/** Why an approver cannot decide an approval the inbox shows him; `null` when he can. */
export type InboxBlock = 'four_eyes' | 'expired' | null;

/** One approval waiting in an approver's inbox, as the desk shows it. */
export interface InboxItem {
  readonly approvalId: string;
  readonly runId: string;
  readonly sessionId: string | null;
  readonly tool: string;
  /** As the approval card shows them: bound parameters removed, sensitive values `[redacted]`. */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** How the tool asks a person to read some of these fields (money, dates), where it says so. */
  readonly display: Readonly<Record<string, FieldDisplay>>;
  readonly rule: string;
  readonly reason: string;
  /** The user whose run asked (the session owner's principal). */
  readonly requestedBy: string | null;
  readonly createdAt: string;
  /** When the approval is denied if nobody decides it. */
  readonly expiresAt: string;
  /** The caller asked for it himself: under four eyes another approver must decide. */
  readonly ownRequest: boolean;
  /** Why the caller cannot decide it (`four_eyes`, `expired`), or `null`. */
  readonly blocked: InboxBlock;
  /** The same call, same arguments, that already ran for the same person, and what it answered; or `null`. */
  readonly earlierCall: EarlierCall | null;
}

/**
 * The tenant of a run, remembered: a run never changes tenant, so an inbox
 * that is read again and again asks the store once per run.
 *
 * @example
 * const tenantOf = runTenants(dependencies.runs);
 * await tenantOf('run_1'); // 'shop'
 */
export function runTenants(
  runs: ServerDependencies['runs'],
  { limit = 10_000 }: { limit?: number } = {},
): (runId: string) => Promise<string | undefined> {
  const known = new Map<string, string>();
  return async (runId) => {
    const cached = known.get(runId);
    if (cached !== undefined) return cached;
    const run = await runs.find(runId);
    if (run === undefined) return undefined;
    if (known.size >= limit) known.clear();
    known.set(runId, run.tenantId ?? '');
    return run.tenantId ?? '';
  };
}

/**
 * The pending approvals of `tenantId`, newest first (another tenant's are
 * never read out of the list).
 *
 * @example
 * const pending = await pendingOfTenant({ approvals, tenantOf, tenantId: 'shop' });
 */
export async function pendingOfTenant({
  approvals,
  tenantOf,
  tenantId,
}: {
  approvals: ServerDependencies['approvals'];
  tenantOf: (runId: string) => Promise<string | undefined>;
  tenantId: string | undefined;
}): Promise<ApprovalRecord[]> {
  const pending = await approvals.listApprovals({ status: 'pending' });
  const mine: ApprovalRecord[] = [];
  for (const approval of pending) {
    if ((await tenantOf(approval.runId)) === (tenantId ?? '')) mine.push(approval);
  }
  return mine.sort((left, right) => right.createdAt - left.createdAt || (left.approvalId < right.approvalId ? 1 : -1));
}

/**
 * An approver's inbox: every pending approval of his tenant, newest first,
 * with who asked, how long is left, and whether he may decide it — the
 * four-eyes answer is `isOwnRequest`, the very check `decideApproval` makes.
 *
 * @example
 * const items = await listInbox({ dependencies, principal, tenantOf, now: Date.now() });
 */
export async function listInbox({
  dependencies,
  principal,
  tenantOf,
  now,
}: {
  dependencies: Pick<ServerDependencies, 'approvals' | 'runs' | 'sessions' | 'allowSelfApproval' | 'tools' | 'audit'>;
  principal: Principal;
  tenantOf: (runId: string) => Promise<string | undefined>;
  now: number;
}): Promise<InboxItem[]> {
  const pending = await pendingOfTenant({ approvals: dependencies.approvals, tenantOf, tenantId: principal.tenantId });
  const items: InboxItem[] = [];
  const policyOf = toolFieldPolicies();
  for (const approval of pending) {
    const run = await dependencies.runs.find(approval.runId);
    if (run === undefined) continue;
    const ownRequest = await isOwnRequest({ principal, run, sessions: dependencies.sessions });
    const expired = approval.expiresAt <= now;
    const registered = dependencies.tools.get(approval.tool);
    // As the approval card shows them: what the principal bound (tenant, user) is not the model's proposal.
    const shown = displayArguments(approval.arguments, policyOf(registered));
    items.push({
      approvalId: approval.approvalId,
      runId: approval.runId,
      sessionId: approval.sessionId ?? null,
      tool: approval.tool,
      arguments: shown,
      display: shownFieldDisplays({ display: registered?.definition.display, shown }),
      rule: approval.rule,
      reason: approval.reason,
      requestedBy: run.principal.userId ?? null,
      createdAt: new Date(approval.createdAt).toISOString(),
      expiresAt: new Date(approval.expiresAt).toISOString(),
      ownRequest,
      blocked: expired ? 'expired' : ownRequest && !dependencies.allowSelfApproval ? 'four_eyes' : null,
      earlierCall: await findEarlierCall({
        dependencies,
        approval,
        tenantId: run.principal.tenantId,
        userId: run.principal.userId,
      }),
    });
  }
  return items;
}
