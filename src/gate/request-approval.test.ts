import { describe, expect, it } from 'vitest';
import type { ApprovalBroker, ApprovalState } from './approval-broker.js';
import { requestApproval } from './request-approval.js';
import { gatedCallFixture } from './test-support/gated-call-fixture.js';

const verdict = { decision: 'require_approval' as const, rule: 'refund_50_or_more', reason: 'A person decides.' };

function broker(state: ApprovalState, { asks = false } = {}): ApprovalBroker {
  return {
    decide: async (_request, { onRequired }) => {
      if (asks) onRequired?.(state.approvalId);
      return state;
    },
  };
}

async function settled() {
  await new Promise((resolve) => setImmediate(resolve));
}

describe('requestApproval', () => {
  it('announces approval:required once, when the broker asks a person, and stays pending', async () => {
    const { runtime, call, events } = gatedCallFixture({
      runtime: { approvals: broker({ status: 'pending', approvalId: 'ap_1' }, { asks: true }) },
    });
    expect(await requestApproval(runtime, call, verdict)).toEqual({ status: 'pending', approvalId: 'ap_1' });
    await settled();
    expect(events.filter((event) => event.type === 'approval:required')).toMatchObject([
      { approvalId: 'ap_1', rule: 'refund_50_or_more' },
    ]);
  });

  it('records who approved, for the audit after the execution', async () => {
    const { runtime, call, audited } = gatedCallFixture({
      runtime: { approvals: broker({ status: 'approved', approvalId: 'ap_1', approver: 'li.wei' }) },
    });
    expect(await requestApproval(runtime, call, verdict)).toEqual({ status: 'approved' });
    expect(call).toMatchObject({ decision: 'approved', approver: 'li.wei', rule: 'refund_50_or_more' });
    expect(audited).toEqual([]);
  });

  it('audits a rejection and tells the model not to try again', async () => {
    const { runtime, call, audited } = gatedCallFixture({
      runtime: {
        approvals: broker({ status: 'rejected', approvalId: 'ap_1', approver: 'li.wei', reason: 'Too much' }),
      },
    });
    const step = await requestApproval(runtime, call, verdict);
    expect(step).toMatchObject({ status: 'refused', stage: 'gate', error: { code: 'rejected_by_approver' } });
    expect(audited[0]).toMatchObject({ decision: 'rejected', approver: 'li.wei', outcome: 'not_run' });
  });

  it('reads an approval used before as an outcome unknown, and any other denial as not run', async () => {
    const used = gatedCallFixture({
      runtime: { approvals: broker({ status: 'denied', approvalId: 'ap_1', code: 'approval_used', reason: 'used' }) },
    });
    expect(await requestApproval(used.runtime, used.call, verdict)).toMatchObject({
      stage: 'execution',
      error: { code: 'outcome_unknown' },
    });
    expect(used.audited[0]).toMatchObject({ decision: 'denied', outcome: 'outcome_unknown' });
    const none = gatedCallFixture();
    expect(await requestApproval(none.runtime, none.call, verdict)).toMatchObject({
      stage: 'gate',
      error: { code: 'no_approver' },
    });
  });

  it('lets a call whose approval was used through to its idempotency key, which knows whether it ran', async () => {
    const used = gatedCallFixture({
      runtime: {
        approvals: broker({
          status: 'denied',
          approvalId: 'ap_1',
          code: 'approval_used',
          reason: 'used',
          approver: 'li.wei',
        }),
        idempotency: { claim: async () => ({ status: 'claimed' }), complete: async () => {} } as never,
      },
      tool: { idempotencyKey: (args) => `refund:${String(args['order_id'])}` },
    });
    expect(await requestApproval(used.runtime, used.call, verdict)).toEqual({ status: 'approved' });
    expect(used.call).toMatchObject({ decision: 'approved', approver: 'li.wei' });
    await settled();
    expect(used.events.filter((event) => event.type === 'approval:resolved')).toMatchObject([
      { approvalId: 'ap_1', decision: 'approved', approver: 'li.wei' },
    ]);
    expect(used.audited).toEqual([]);
  });
});
