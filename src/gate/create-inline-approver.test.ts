import { describe, expect, it } from 'vitest';
import { runAgent } from '../loop/run-agent.js';
import {
  callsWithIds,
  openGateHarness,
  statelessModel,
  toolMessage,
} from '../store/sqlite/test-support/gate-harness.js';
import type { ApprovalRequest } from './approval-broker.js';
import { createInlineApprover, type InlineAnswer } from './create-inline-approver.js';
import { countPayments } from './test-support/payment-tools.js';

const request: ApprovalRequest = {
  runId: 'run-1',
  sessionId: undefined,
  step: 1,
  toolCallId: 'call_1',
  tool: 'send_payment',
  arguments: { account: 'AC2002', amount_cents: 25_000 },
  argumentsHash: 'hash',
  rule: 'payment_100_or_more',
  reason: 'Payments of 100.00 or more need a person.',
};

function decideWith(
  ask: () => Promise<InlineAnswer | undefined>,
  { timeoutMs = 1_000, signal = new AbortController().signal } = {},
) {
  return createInlineApprover({ ask, timeoutMs, approver: 'desk' }).decide(request, { signal });
}

describe('createInlineApprover', () => {
  it('approves when the person says approve, naming the default approver', async () => {
    expect(await decideWith(async () => 'approve')).toMatchObject({ status: 'approved', approver: 'desk' });
  });

  it('rejects with the reason and approver the answer gives', async () => {
    const state = await decideWith(async () => ({ decision: 'reject', reason: 'Wrong account', approver: 'li.wei' }));
    expect(state).toMatchObject({ status: 'rejected', approver: 'li.wei', reason: 'Wrong account' });
  });

  it('denies as timed out when no answer comes in time', async () => {
    const state = await decideWith(() => new Promise(() => {}), { timeoutMs: 20 });
    expect(state).toMatchObject({ status: 'denied', code: 'approval_timed_out' });
  });

  it('denies when asking the approver throws', async () => {
    const state = await decideWith(async () => {
      throw new Error('approval service down');
    });
    expect(state).toMatchObject({ status: 'denied', code: 'approver_failed' });
  });

  it('denies when the answer is neither approve nor reject', async () => {
    expect(await decideWith(async () => undefined)).toMatchObject({ status: 'denied', code: 'approver_failed' });
    expect(await decideWith(async () => 'yes' as InlineAnswer)).toMatchObject({
      status: 'denied',
      code: 'approver_failed',
    });
  });

  it('denies when the run is cancelled while waiting', async () => {
    const controller = new AbortController();
    const pending = decideWith(() => new Promise(() => {}), { signal: controller.signal });
    controller.abort();
    expect(await pending).toMatchObject({ status: 'denied', code: 'approval_aborted' });
  });

  it('runs an approved call within the same run, after announcing approval:required', async () => {
    const harness = openGateHarness();
    const asked: ApprovalRequest[] = [];
    const result = await runAgent({
      ...harness.runOptions,
      model: statelessModel([
        callsWithIds(['call_pay', 'send_payment', { account: 'AC2002', amount_cents: 25_000, reference: 'INV-9' }]),
      ]),
      messages: [{ role: 'user', content: 'Pay INV-9' }],
      approvals: createInlineApprover({
        ask: async (question) => {
          asked.push(question);
          return 'approve';
        },
      }),
    });
    expect(result.stopReason).toBe('completed');
    expect(asked.map((question) => question.arguments)).toEqual([
      { account: 'AC2002', amount_cents: 25_000, reference: 'INV-9', tenant: 'bank', payer: 'U1' },
    ]);
    expect(countPayments(harness.store.database)).toBe(1);
    expect(
      harness.seen
        .map((event) => event.type)
        .filter((type) => type.startsWith('approval:') || type.startsWith('tool:')),
    ).toEqual(['tool:proposed', 'approval:required', 'approval:resolved', 'tool:start', 'tool:end']);
  });

  it('tells the model nobody approved in time and runs nothing when the inline approver times out', async () => {
    const harness = openGateHarness();
    const result = await runAgent({
      ...harness.runOptions,
      model: statelessModel([
        callsWithIds(['call_pay', 'send_payment', { account: 'AC2002', amount_cents: 25_000, reference: 'INV-9' }]),
      ]),
      messages: [{ role: 'user', content: 'Pay INV-9' }],
      approvals: createInlineApprover({ ask: () => new Promise(() => {}), timeoutMs: 10 }),
    });
    expect(toolMessage(result.messages, 'call_pay')).toMatchInlineSnapshot(
      `"Refused (approval_timed_out): This call needed a person’s approval and nobody approved it in time. Do not call send_payment again for this; tell the user what happened."`,
    );
    expect(countPayments(harness.store.database)).toBe(0);
    expect(harness.audit.listAudit().map((entry) => [entry.decision, entry.outcome])).toEqual([['denied', 'not_run']]);
  });
});
