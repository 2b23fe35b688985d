/**
 * The rules of an approval, written once for every store: when a pending
 * approval times out, when a person's decision may be recorded, and when a
 * given approval (a grant) lets its call through — bound to the run, the
 * call, the tool and the argument hash, good for one use, before its grant
 * expires and under the version of the rules it was asked under. A store
 * reads the approval, asks these rules, and writes what they say.
 * (Who may decide — four eyes — is `four-eyes.ts`, for the server and the command line alike.)
 *
 * @module
 */
import { ApprovalResolutionError } from '../errors/approval-resolution-error.js';
import type { ApprovalRequest, ApprovalState } from './approval-broker.js';
import type { ApprovalRecord } from './approval-record.js';

/** Why a grant was voided before it was used; stored as the approval's decision reason. */
export type VoidedGrant = 'grant_expired' | 'policy_changed';

const voidedGrants: readonly string[] = ['grant_expired', 'policy_changed'] satisfies VoidedGrant[];

/**
 * The approval a call's first request creates: pending, waiting for a
 * person until `now + ttlMs` (later it is denied as timed out).
 *
 * @example
 * const approval = pendingApproval(request, { approvalId: 'ap_1', now: Date.now(), ttlMs: 86_400_000 });
 * approval.expiresAt; // a day from now
 */
export function pendingApproval(
  request: ApprovalRequest,
  { approvalId, now, ttlMs }: { approvalId: string; now: number; ttlMs: number },
): ApprovalRecord {
  return {
    ...request,
    approvalId,
    status: 'pending',
    approver: undefined,
    decisionReason: undefined,
    createdAt: now,
    decidedAt: undefined,
    expiresAt: now + ttlMs,
    consumedAt: undefined,
    grantExpiresAt: undefined,
  };
}

/**
 * Whether an approval given but not yet used is void for `request` at
 * `now`: `grant_expired` once its grant's time is up, `policy_changed` when
 * the request runs under another version of the rules than the one it was
 * asked under (only when both versions are known); undefined while it holds.
 *
 * @example
 * grantVoided({ ...approval, grantExpiresAt: 1_000 }, request, 1_000); // 'grant_expired'
 */
export function grantVoided(approval: ApprovalRecord, request: ApprovalRequest, now: number): VoidedGrant | undefined {
  if (approval.grantExpiresAt !== undefined && now >= approval.grantExpiresAt) return 'grant_expired';
  if (
    request.policyVersion !== undefined &&
    approval.policyVersion !== undefined &&
    approval.policyVersion !== request.policyVersion
  ) {
    return 'policy_changed';
  }
  return undefined;
}

/**
 * What a run asking about its call's existing approval gets, and what the
 * store must write first: nothing, `expire` (a pending approval past its
 * time: denied), `void` (an approval given but not used, whose grant
 * expired or whose policy changed: denied with the reason), or `consume`
 * (the one use of a grant: `state` when this write took it, `used` when
 * another already had).
 */
export type ApprovalUse =
  | { readonly write: 'none'; readonly state: ApprovalState }
  | { readonly write: 'expire'; readonly state: ApprovalState }
  | { readonly write: 'void'; readonly reason: VoidedGrant; readonly state: ApprovalState }
  | { readonly write: 'consume'; readonly state: ApprovalState; readonly used: ApprovalState };

/**
 * The rules of an approval as a grant: it applies only to the same tool
 * and argument hash (which for a pinned tool binds its definition too); a
 * pending one times out at `expiresAt`; a rejection is told once; a given
 * one is good for one use, unless voided first (`grantVoided`).
 *
 * @example
 * const use = approvalUse(approval, request, Date.now());
 * if (use.write === 'consume') …
 */
export function approvalUse(approval: ApprovalRecord, request: ApprovalRequest, now: number): ApprovalUse {
  const { approvalId } = approval;
  if (approval.tool !== request.tool || approval.argumentsHash !== request.argumentsHash) {
    const reason = `approval ${approvalId} was given for other arguments`;
    return { write: 'none', state: { status: 'denied', approvalId, code: 'arguments_changed', reason } };
  }
  if (approval.status === 'pending') {
    if (now < approval.expiresAt) return { write: 'none', state: { status: 'pending', approvalId } };
    return {
      write: 'expire',
      state: { status: 'denied', approvalId, code: 'approval_timed_out', reason: 'timed out' },
    };
  }
  const approver = approval.approver ?? 'unknown';
  if (approval.status === 'denied') {
    const voided = voidedGrants.includes(approval.decisionReason ?? '')
      ? (approval.decisionReason as VoidedGrant)
      : undefined;
    return {
      write: 'none',
      state: {
        status: 'denied',
        approvalId,
        code: voided ?? 'approval_timed_out',
        reason: approval.decisionReason ?? 'denied',
        ...(voided === undefined || approval.approver === undefined ? {} : { approver }),
      },
    };
  }
  if (approval.status === 'rejected') {
    const rejected: ApprovalState = { status: 'rejected', approvalId, approver, reason: approval.decisionReason ?? '' };
    return { write: 'consume', state: rejected, used: rejected };
  }
  const used: ApprovalState = { status: 'denied', approvalId, code: 'approval_used', reason: 'already used', approver };
  if (approval.consumedAt !== undefined) return { write: 'none', state: used };
  const voided = grantVoided(approval, request, now);
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
 * What recording a person's decision must do: an error, or `decide`.
 * `expire` comes with an error: the approval timed out and must be marked
 * denied first (the error is thrown after that write commits).
 */
export type ApprovalResolution =
  | { readonly write: 'none' | 'expire'; readonly error: ApprovalResolutionError }
  | { readonly write: 'decide'; readonly status: 'approved' | 'rejected'; readonly grantExpiresAt: number | undefined };

/**
 * The approver a decision is recorded under: the name given, trimmed. A
 * decision must name who made it; throws `ApprovalResolutionError`
 * (`missing_approver`) otherwise.
 *
 * @example
 * decisionApprover({ approvalId: 'ap_1', approver: ' li.wei ' }); // 'li.wei'
 */
export function decisionApprover({ approvalId, approver }: { approvalId: string; approver: unknown }): string {
  if (typeof approver !== 'string' || approver.trim() === '') {
    throw new ApprovalResolutionError({ approvalId, failure: 'missing_approver' });
  }
  return approver.trim();
}

/**
 * Whether a person's decision on `approval` (undefined: there is none) may
 * be recorded at `now`: not when it does not exist, was decided already, or
 * timed out (then `expire` first). An approval given is a grant that
 * expires unused `grantTtlMs` after the decision; a rejection has no grant.
 *
 * @example
 * const resolution = approvalResolution(approval, { approvalId, decision: 'approve', now, grantTtlMs });
 * if (resolution.write !== 'decide') throw resolution.error;
 */
export function approvalResolution(
  approval: ApprovalRecord | undefined,
  {
    approvalId,
    decision,
    now,
    grantTtlMs,
  }: { approvalId: string; decision: 'approve' | 'reject'; now: number; grantTtlMs: number },
): ApprovalResolution {
  if (approval === undefined) {
    return { write: 'none', error: new ApprovalResolutionError({ approvalId, failure: 'not_found' }) };
  }
  if (approval.status !== 'pending') {
    return {
      write: 'none',
      error: new ApprovalResolutionError({
        approvalId,
        failure: 'already_decided',
        status: approval.status,
        approver: approval.approver ?? null,
      }),
    };
  }
  if (now >= approval.expiresAt) {
    return {
      write: 'expire',
      error: new ApprovalResolutionError({ approvalId, failure: 'expired', expiresAt: approval.expiresAt }),
    };
  }
  return decision === 'approve'
    ? { write: 'decide', status: 'approved', grantExpiresAt: now + grantTtlMs }
    : { write: 'decide', status: 'rejected', grantExpiresAt: undefined };
}
