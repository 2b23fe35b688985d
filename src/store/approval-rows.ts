import { ApprovalResolutionError } from '../errors/approval-resolution-error.js';
import type { ApprovalRequest, ApprovalState } from '../gate/approval-broker.js';

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
  /** An approval given: until when it may be used (later, the call is refused and a person must be asked again). */
  readonly grantExpiresAt: number | undefined;
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
  /** Added by migration 29: absent in rows read from an older schema's query, null in rows written before it. */
  tool_fingerprint?: string | null;
  policy_version?: string | null;
  grant_expires_at?: number | null;
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
    ...(row.tool_fingerprint === null || row.tool_fingerprint === undefined
      ? {}
      : { toolFingerprint: row.tool_fingerprint }),
    ...(row.policy_version === null || row.policy_version === undefined ? {} : { policyVersion: row.policy_version }),
  };
}

/** The columns a new pending approval is written with, in the order of `pendingApprovalValues`. */
export const pendingApprovalColumns =
  'approval_id, run_id, session_id, step, tool_call_id, tool, arguments, arguments_hash, rule, reason, status, ' +
  'created_at, expires_at, tool_fingerprint, policy_version';

/**
 * A new pending approval's values, in the order of `pendingApprovalColumns`.
 *
 * @example
 * insert.run(...pendingApprovalValues(request, { approvalId, now, ttlMs }));
 */
export function pendingApprovalValues(
  request: ApprovalRequest,
  { approvalId, now, ttlMs }: { approvalId: string; now: number; ttlMs: number },
): (string | number | null)[] {
  return [
    approvalId,
    request.runId,
    request.sessionId ?? null,
    request.step,
    request.toolCallId,
    request.tool,
    JSON.stringify(request.arguments),
    request.argumentsHash,
    request.rule,
    request.reason,
    'pending',
    now,
    now + ttlMs,
    request.toolFingerprint ?? null,
    request.policyVersion ?? null,
  ];
}

/** Why a grant was voided before it was used; stored as the approval's decision reason. */
export type VoidedGrant = 'grant_expired' | 'policy_changed';

/**
 * What a run asking about its call's existing approval row gets, and what
 * the backend must write first: nothing, `expire` (a pending approval past
 * its time: denied), `void` (an approval given but not used, whose grant
 * expired or whose policy changed: denied with the reason), or `consume`
 * (the one use of a grant: `state` when this write took it, `used` when
 * another already had).
 */
export type ApprovalUse =
  | { readonly write: 'none'; readonly state: ApprovalState }
  | { readonly write: 'expire'; readonly state: ApprovalState }
  | { readonly write: 'void'; readonly reason: VoidedGrant; readonly state: ApprovalState }
  | { readonly write: 'consume'; readonly state: ApprovalState; readonly used: ApprovalState };

const voidedGrants: readonly string[] = ['grant_expired', 'policy_changed'] satisfies VoidedGrant[];

/**
 * The rules of an approval as a grant, written once for every backend: it
 * is bound to the run, the call, the tool and the argument hash (which for
 * a pinned tool binds its definition too); a pending one times out; a
 * given one is good for one use, before its grant expires and under the
 * version of the rules it was asked under.
 *
 * @example
 * const use = approvalUse(row, request, Date.now());
 * if (use.write === 'consume') …
 */
export function approvalUse(row: ApprovalRow, request: ApprovalRequest, now: number): ApprovalUse {
  const approvalId = row.approval_id;
  if (row.tool !== request.tool || row.arguments_hash !== request.argumentsHash) {
    const reason = `approval ${approvalId} was given for other arguments`;
    return { write: 'none', state: { status: 'denied', approvalId, code: 'arguments_changed', reason } };
  }
  if (row.status === 'pending') {
    if (now < row.expires_at) return { write: 'none', state: { status: 'pending', approvalId } };
    return {
      write: 'expire',
      state: { status: 'denied', approvalId, code: 'approval_timed_out', reason: 'timed out' },
    };
  }
  const approver = row.approver ?? 'unknown';
  if (row.status === 'denied') {
    const voided = voidedGrants.includes(row.decision_reason ?? '') ? (row.decision_reason as VoidedGrant) : undefined;
    return {
      write: 'none',
      state: {
        status: 'denied',
        approvalId,
        code: voided ?? 'approval_timed_out',
        reason: row.decision_reason ?? 'denied',
        ...(voided === undefined || row.approver === null ? {} : { approver }),
      },
    };
  }
  if (row.status === 'rejected') {
    const rejected: ApprovalState = { status: 'rejected', approvalId, approver, reason: row.decision_reason ?? '' };
    return { write: 'consume', state: rejected, used: rejected };
  }
  const used: ApprovalState = { status: 'denied', approvalId, code: 'approval_used', reason: 'already used', approver };
  if (row.consumed_at !== null) return { write: 'none', state: used };
  const voided: VoidedGrant | undefined =
    row.grant_expires_at !== null && row.grant_expires_at !== undefined && now >= row.grant_expires_at
      ? 'grant_expired'
      : request.policyVersion !== undefined &&
          row.policy_version !== null &&
          row.policy_version !== undefined &&
          row.policy_version !== request.policyVersion
        ? 'policy_changed'
        : undefined;
  if (voided !== undefined) {
    return {
      write: 'void',
      reason: voided,
      state: { status: 'denied', approvalId, code: voided, reason: voided, approver },
    };
  }
  return { write: 'consume', state: { status: 'approved', approvalId, approver }, used };
}

/**
 * What recording a person's decision on `row` must do, written once for
 * every backend: an error (no such approval, decided already, expired —
 * then `expire` first), or `decide` with the new status and, for an
 * approval, when its grant expires unused.
 *
 * @example
 * const step = resolveApprovalRow(row, { approvalId, decision: 'approve', now, grantTtlMs });
 */
export function resolveApprovalRow(
  row: ApprovalRow | undefined,
  {
    approvalId,
    decision,
    now,
    grantTtlMs,
  }: { approvalId: string; decision: 'approve' | 'reject'; now: number; grantTtlMs: number },
):
  | { readonly write: 'none' | 'expire'; readonly error: ApprovalResolutionError }
  | { readonly write: 'decide'; readonly status: 'approved' | 'rejected'; readonly grantExpiresAt: number | null } {
  if (row === undefined) {
    return { write: 'none', error: new ApprovalResolutionError({ approvalId, failure: 'not_found' }) };
  }
  if (row.status !== 'pending') {
    return {
      write: 'none',
      error: new ApprovalResolutionError({
        approvalId,
        failure: 'already_decided',
        status: row.status,
        approver: row.approver,
      }),
    };
  }
  if (now >= row.expires_at) {
    return {
      write: 'expire',
      error: new ApprovalResolutionError({ approvalId, failure: 'expired', expiresAt: row.expires_at }),
    };
  }
  return decision === 'approve'
    ? { write: 'decide', status: 'approved', grantExpiresAt: now + grantTtlMs }
    : { write: 'decide', status: 'rejected', grantExpiresAt: null };
}
