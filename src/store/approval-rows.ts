import type { ApprovalRecord, ApprovalStatus } from '../gate/approval-record.js';

export type { ApprovalRecord, ApprovalStatus } from '../gate/approval-record.js';

/** A row of `approvals` as both backends read it. */
export interface ApprovalRow {
  approval_id: string;
  run_id: string;
  session_id: string | null;
  step: number;
  tool_call_id: string;
  tool: string;
  arguments: string;
  arguments_hash: string;
  rule: string;
  reason: string;
  status: ApprovalStatus;
  approver: string | null;
  decision_reason: string | null;
  created_at: number;
  decided_at: number | null;
  expires_at: number;
  consumed_at: number | null;
  /** Added by migration 29: null in rows written before it. */
  tool_fingerprint: string | null;
  policy_version: string | null;
  grant_expires_at: number | null;
}

/**
 * A stored row as the approval it records.
 *
 * @example
 * const records = rows.map(toApprovalRecord);
 */
export function toApprovalRecord(row: ApprovalRow): ApprovalRecord {
  return {
    approvalId: row.approval_id,
    runId: row.run_id,
    sessionId: row.session_id ?? undefined,
    step: row.step,
    toolCallId: row.tool_call_id,
    tool: row.tool,
    arguments: JSON.parse(row.arguments) as Record<string, unknown>,
    argumentsHash: row.arguments_hash,
    rule: row.rule,
    reason: row.reason,
    status: row.status,
    approver: row.approver ?? undefined,
    decisionReason: row.decision_reason ?? undefined,
    createdAt: row.created_at,
    decidedAt: row.decided_at ?? undefined,
    expiresAt: row.expires_at,
    consumedAt: row.consumed_at ?? undefined,
    grantExpiresAt: row.grant_expires_at ?? undefined,
    ...(row.tool_fingerprint === null ? {} : { toolFingerprint: row.tool_fingerprint }),
    ...(row.policy_version === null ? {} : { policyVersion: row.policy_version }),
  };
}

/**
 * A new pending approval's values, in the order of the columns
 * `insertPendingApproval` writes (see `approval-statements.ts`).
 *
 * @example
 * yield* run(insertPendingApproval, pendingApprovalValues(pendingApproval(request, { approvalId, now, ttlMs })));
 */
export function pendingApprovalValues(approval: ApprovalRecord): (string | number | null)[] {
  return [
    approval.approvalId,
    approval.runId,
    approval.sessionId ?? null,
    approval.step,
    approval.toolCallId,
    approval.tool,
    JSON.stringify(approval.arguments),
    approval.argumentsHash,
    approval.rule,
    approval.reason,
    approval.status,
    approval.createdAt,
    approval.expiresAt,
    approval.toolFingerprint ?? null,
    approval.policyVersion ?? null,
  ];
}
