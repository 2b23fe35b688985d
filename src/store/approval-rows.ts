import type { ApprovalRequest } from '../gate/approval-broker.js';

/** Where an approval stands. */
export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'denied';

/**
 * One approval as stored: the request, and the decision once there is one.
 *
 * @example
 * const pending: readonly ApprovalRecord[] = broker.list({ status: 'pending' });
 */
export interface ApprovalRecord extends ApprovalRequest {
  readonly approvalId: string;
  readonly status: ApprovalStatus;
  readonly approver: string | undefined;
  readonly decisionReason: string | undefined;
  readonly createdAt: number;
  readonly decidedAt: number | undefined;
  readonly expiresAt: number;
  /** When the approved call was let through; an approval lets a call through once. */
  readonly consumedAt: number | undefined;
}

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
  };
}
