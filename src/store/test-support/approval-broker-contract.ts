import { describe, expect, it } from 'vitest';
import type { ApprovalBroker, ApprovalRequest } from '../../gate/approval-broker.js';
import { type Awaitable, type CreateBackend, openFreshBackends } from './contract-backend.js';

/**
 * What a durable broker adds to `ApprovalBroker`: a person's decision, recorded from anywhere.
 *
 * @example
 * await broker.resolveApproval({ approvalId, decision: 'approve', approver: 'li.wei' });
 */
export interface ResolvableApprovalBroker extends ApprovalBroker {
  /** Throws an `ApprovalResolutionError` (`failure`: not_found, already_decided, expired, missing_approver). */
  resolveApproval(request: {
    approvalId: string;
    decision: 'approve' | 'reject';
    approver: string;
    reason?: string;
  }): Awaitable<unknown>;
}

const request: ApprovalRequest = {
  runId: 'run-1',
  sessionId: 'session-1',
  step: 1,
  toolCallId: 'call_1',
  tool: 'send_payment',
  arguments: { account: 'AC2002', amount_cents: 25_000 },
  argumentsHash: 'hash-a',
  rule: 'payment_100_or_more',
  reason: 'Payments of 100.00 or more need a person.',
};
const signal = new AbortController().signal;

/** The `failure` of what `attempt` threw, or `recorded` when it did not throw. */
async function resolutionFailure(attempt: () => Awaitable<unknown>): Promise<string> {
  try {
    await attempt();
  } catch (error) {
    const failure = (error as { failure?: unknown }).failure;
    if (typeof failure === 'string') return failure;
    throw error;
  }
  return 'recorded';
}

/**
 * The behaviour every durable `ApprovalBroker` must have: the first
 * `decide` records a pending approval and announces it once, a person's
 * decision is returned only for the same run, call and arguments, an
 * approval lets its call through once, and an approval nobody decided in
 * time is denied. The backend's approvals expire after
 * `options.approvalTtlMs`.
 *
 * @example
 * describeApprovalBrokerContract('SqliteApprovalBroker', (options) => openSqliteBackend({ path: ':memory:', ...options }));
 */
export function describeApprovalBrokerContract(
  name: string,
  createBackend: CreateBackend<{ readonly approvals: ResolvableApprovalBroker }>,
): void {
  describe(`${name} (ApprovalBroker contract)`, () => {
    const open = openFreshBackends(createBackend);
    const pending = async (broker: ApprovalBroker, asked = request) => {
      const state = await broker.decide(asked, { signal });
      if (state.status !== 'pending') throw new Error(`expected a pending approval, got ${state.status}`);
      return state.approvalId;
    };

    it('records a pending approval the first time, and announces it once', async () => {
      const { backend } = await open();
      const announced: string[] = [];
      const onRequired = (approvalId: string) => {
        announced.push(approvalId);
      };
      const first = await backend.approvals.decide(request, { signal, onRequired });
      expect(first).toMatchObject({ status: 'pending' });
      const again = await backend.approvals.decide(request, { signal, onRequired });
      expect(again).toEqual({ status: 'pending', approvalId: first.approvalId });
      expect(announced).toEqual([first.approvalId]);
    });

    it('returns the approval, with its approver, once a person approved', async () => {
      const { backend } = await open();
      const approvalId = await pending(backend.approvals);
      await backend.approvals.resolveApproval({ approvalId, decision: 'approve', approver: 'li.wei' });
      expect(await backend.approvals.decide(request, { signal })).toEqual({
        status: 'approved',
        approvalId,
        approver: 'li.wei',
      });
    });

    it('lets an approved call through only once', async () => {
      const { backend } = await open();
      const approvalId = await pending(backend.approvals);
      await backend.approvals.resolveApproval({ approvalId, decision: 'approve', approver: 'li.wei' });
      expect(await backend.approvals.decide(request, { signal })).toMatchObject({ status: 'approved' });
      expect(await backend.approvals.decide(request, { signal })).toEqual({
        status: 'denied',
        approvalId,
        code: 'approval_used',
        reason: 'already used',
        approver: 'li.wei',
      });
    });

    it('returns a rejection with its reason, every time it is asked', async () => {
      const { backend } = await open();
      const approvalId = await pending(backend.approvals);
      await backend.approvals.resolveApproval({ approvalId, decision: 'reject', approver: 'li.wei', reason: 'no' });
      const rejected = { status: 'rejected', approvalId, approver: 'li.wei', reason: 'no' };
      expect(await backend.approvals.decide(request, { signal })).toEqual(rejected);
      expect(await backend.approvals.decide(request, { signal })).toEqual(rejected);
    });

    it('refuses an approval replayed for changed arguments or another tool, and never matches another run', async () => {
      const { backend } = await open();
      const approvalId = await pending(backend.approvals);
      await backend.approvals.resolveApproval({ approvalId, decision: 'approve', approver: 'li.wei' });
      const changed = await backend.approvals.decide({ ...request, argumentsHash: 'hash-b' }, { signal });
      expect(changed).toMatchObject({ status: 'denied', approvalId, code: 'arguments_changed' });
      const otherTool = await backend.approvals.decide({ ...request, tool: 'close_account' }, { signal });
      expect(otherTool).toMatchObject({ status: 'denied', code: 'arguments_changed' });
      const asked: string[] = [];
      const otherRun = await backend.approvals.decide(
        { ...request, runId: 'run-2' },
        { signal, onRequired: (id) => void asked.push(id) },
      );
      expect(otherRun).toMatchObject({ status: 'pending' });
      expect(asked).toEqual([otherRun.approvalId]);
      expect(otherRun.approvalId).not.toBe(approvalId);
      expect(await backend.approvals.decide(request, { signal })).toMatchObject({ status: 'approved' });
    });

    it('keeps one approval per call when the same call is decided twice at once', async () => {
      const { backend } = await open();
      const asked: string[] = [];
      const onRequired = (approvalId: string) => void asked.push(approvalId);
      const states = await Promise.all([
        backend.approvals.decide(request, { signal, onRequired }),
        backend.approvals.decide(request, { signal, onRequired }),
      ]);
      expect(new Set(states.map((state) => state.approvalId)).size).toBe(1);
      expect(asked).toHaveLength(1);
    });

    it('denies the call as timed out when nobody decided before the approval expired', async () => {
      const { backend, clock } = await open();
      const approvalId = await pending(backend.approvals);
      clock.now += 60_000;
      expect(await backend.approvals.decide(request, { signal })).toMatchObject({
        status: 'denied',
        approvalId,
        code: 'approval_timed_out',
      });
      expect(await backend.approvals.decide(request, { signal })).toMatchObject({
        status: 'denied',
        code: 'approval_timed_out',
      });
      expect(
        await resolutionFailure(() =>
          backend.approvals.resolveApproval({ approvalId, decision: 'approve', approver: 'li.wei' }),
        ),
      ).toBe('already_decided');
    });

    it('refuses a decision that comes after the approval expired', async () => {
      const { backend, clock } = await open();
      const approvalId = await pending(backend.approvals);
      clock.now += 60_000;
      expect(
        await resolutionFailure(() =>
          backend.approvals.resolveApproval({ approvalId, decision: 'approve', approver: 'li.wei' }),
        ),
      ).toBe('expired');
      expect(await backend.approvals.decide(request, { signal })).toMatchObject({
        status: 'denied',
        code: 'approval_timed_out',
      });
    });

    it('keeps an approval given as a grant: unused past its expiry it is void, and stays void', async () => {
      const { backend, clock } = await open();
      const approvalId = await pending(backend.approvals);
      clock.now += 30_000;
      await backend.approvals.resolveApproval({ approvalId, decision: 'approve', approver: 'li.wei' });
      clock.now += 120_000;
      const voided = { status: 'denied', approvalId, code: 'grant_expired', approver: 'li.wei' };
      expect(await backend.approvals.decide(request, { signal })).toMatchObject(voided);
      expect(await backend.approvals.decide(request, { signal })).toMatchObject(voided);
    });

    it('lets a grant through before it expires, once, and records its expiry, policy and tool definition', async () => {
      const { backend, clock } = await open();
      const asked = { ...request, policyVersion: 'rules-v1', toolFingerprint: 'fp-1' };
      const approvalId = await pending(backend.approvals, asked);
      await backend.approvals.resolveApproval({ approvalId, decision: 'approve', approver: 'li.wei' });
      const decidedAt = clock.now;
      clock.now += 119_000;
      expect(await backend.approvals.decide(asked, { signal })).toMatchObject({ status: 'approved', approvalId });
      const record = await (
        backend.approvals as unknown as { getApproval(id: string): Awaitable<Record<string, unknown>> }
      ).getApproval(approvalId);
      expect(record).toMatchObject({
        grantExpiresAt: decidedAt + 120_000,
        policyVersion: 'rules-v1',
        toolFingerprint: 'fp-1',
      });
    });

    it('voids a grant used under another version of the rules than it was asked under', async () => {
      const { backend } = await open();
      const asked = { ...request, policyVersion: 'rules-v1' };
      const approvalId = await pending(backend.approvals, asked);
      await backend.approvals.resolveApproval({ approvalId, decision: 'approve', approver: 'li.wei' });
      const voided = { status: 'denied', approvalId, code: 'policy_changed', approver: 'li.wei' };
      expect(await backend.approvals.decide({ ...asked, policyVersion: 'rules-v2' }, { signal })).toMatchObject(voided);
      // Void for good: going back to the old rules does not revive it.
      expect(await backend.approvals.decide(asked, { signal })).toMatchObject(voided);
    });

    it('refuses to record a decision on an unknown or already decided approval, or without an approver', async () => {
      const { backend } = await open();
      const { approvals } = backend;
      const approvalId = await pending(approvals);
      expect(
        await resolutionFailure(() =>
          approvals.resolveApproval({ approvalId: 'ap_nope', decision: 'approve', approver: 'x' }),
        ),
      ).toBe('not_found');
      expect(
        await resolutionFailure(() => approvals.resolveApproval({ approvalId, decision: 'approve', approver: ' ' })),
      ).toBe('missing_approver');
      expect(
        await resolutionFailure(() =>
          approvals.resolveApproval({ approvalId, decision: 'reject', approver: 'li.wei' }),
        ),
      ).toBe('recorded');
      expect(
        await resolutionFailure(() =>
          approvals.resolveApproval({ approvalId, decision: 'approve', approver: 'mallory' }),
        ),
      ).toBe('already_decided');
      expect(await approvals.decide(request, { signal })).toMatchObject({ status: 'rejected', approver: 'li.wei' });
    });
  });
}
