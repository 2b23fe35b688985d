import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from './approval-broker.js';
import type { ApprovalRecord } from './approval-record.js';
import { approvalResolution, approvalUse, decisionApprover, grantVoided, pendingApproval } from './approval-rules.js';

const request: ApprovalRequest = {
  runId: 'run-1',
  sessionId: 'session-1',
  step: 1,
  toolCallId: 'call_1',
  tool: 'send_payment',
  arguments: { amount_cents: 25_000 },
  argumentsHash: 'hash-a',
  rule: 'payment_100_or_more',
  policyVersion: 'v1',
  reason: 'Payments of 100.00 or more need a person.',
};
const { policyVersion: _, ...unversioned } = request;
const asked = pendingApproval(request, { approvalId: 'ap_1', now: 1_000, ttlMs: 500 });
const approved: ApprovalRecord = {
  ...asked,
  status: 'approved',
  approver: 'li.wei',
  decidedAt: 1_200,
  grantExpiresAt: 2_000,
};

describe('approval rules', () => {
  it('waits for a person until the pending approval expires, then denies it as timed out', () => {
    expect(asked).toMatchObject({ status: 'pending', createdAt: 1_000, expiresAt: 1_500 });
    expect(approvalUse(asked, request, 1_499)).toEqual({
      write: 'none',
      state: { status: 'pending', approvalId: 'ap_1' },
    });
    expect(approvalUse(asked, request, 1_500)).toMatchObject({
      write: 'expire',
      state: { status: 'denied', code: 'approval_timed_out' },
    });
  });

  it('lets a grant through once, for the same arguments, before it expires and under the same rules', () => {
    expect(approvalUse(approved, request, 1_999)).toMatchObject({
      write: 'consume',
      state: { status: 'approved', approver: 'li.wei' },
      used: { status: 'denied', code: 'approval_used' },
    });
    expect(approvalUse({ ...approved, consumedAt: 1_300 }, request, 1_400)).toMatchObject({
      write: 'none',
      state: { code: 'approval_used', approver: 'li.wei' },
    });
    expect(approvalUse(approved, { ...request, argumentsHash: 'hash-b' }, 1_300)).toMatchObject({
      write: 'none',
      state: { status: 'denied', code: 'arguments_changed' },
    });
  });

  it('voids a grant used after it expired or under another version of the rules, and says so after', () => {
    expect(grantVoided(approved, request, 2_000)).toBe('grant_expired');
    expect(grantVoided(approved, { ...request, policyVersion: 'v2' }, 1_300)).toBe('policy_changed');
    expect(grantVoided({ ...approved, policyVersion: 'v0' }, unversioned, 1_300)).toBeUndefined();
    expect(approvalUse(approved, request, 2_000)).toMatchObject({ write: 'void', reason: 'grant_expired' });
    const voided: ApprovalRecord = { ...approved, status: 'denied', decisionReason: 'policy_changed' };
    expect(approvalUse(voided, request, 1_300)).toEqual({
      write: 'none',
      state: {
        status: 'denied',
        approvalId: 'ap_1',
        code: 'policy_changed',
        reason: 'policy_changed',
        approver: 'li.wei',
      },
    });
  });

  it('records a decision only on a pending approval not yet expired; an approval given is a grant that expires', () => {
    const options = { approvalId: 'ap_1', decision: 'approve', now: 1_100, grantTtlMs: 900 } as const;
    expect(approvalResolution(asked, options)).toEqual({ write: 'decide', status: 'approved', grantExpiresAt: 2_000 });
    expect(approvalResolution(asked, { ...options, decision: 'reject' })).toEqual({
      write: 'decide',
      status: 'rejected',
      grantExpiresAt: undefined,
    });
    expect(approvalResolution(undefined, options)).toMatchObject({ write: 'none', error: { failure: 'not_found' } });
    expect(approvalResolution(approved, options)).toMatchObject({
      write: 'none',
      error: { failure: 'already_decided', status: 'approved' },
    });
    expect(approvalResolution(asked, { ...options, now: 1_500 })).toMatchObject({
      write: 'expire',
      error: { failure: 'expired' },
    });
  });

  it('takes a decision only from a named approver', () => {
    expect(decisionApprover({ approvalId: 'ap_1', approver: ' li.wei ' })).toBe('li.wei');
    expect(() => decisionApprover({ approvalId: 'ap_1', approver: '  ' })).toThrow('must name the approver');
  });
});
