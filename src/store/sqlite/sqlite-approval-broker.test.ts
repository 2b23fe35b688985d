import { describe, expect, it } from 'vitest';
import { ApprovalResolutionError } from '../../errors/approval-resolution-error.js';
import type { ApprovalRequest } from '../../gate/approval-broker.js';
import { countPayments } from '../../gate/test-support/payment-tools.js';
import { resumeAfterApproval } from '../../loop/resume-after-approval.js';
import { runSession } from '../../loop/run-session.js';
import {
  callsWithIds,
  type GateHarness,
  openGateHarness,
  statelessModel,
  toolMessage,
} from './test-support/gate-harness.js';

const bigPayment = { account: 'AC2002', amount_cents: 25_000, reference: 'INV-77' };
const model = statelessModel([
  callsWithIds(['call_pay', 'send_payment', bigPayment]),
  { role: 'assistant', content: 'Payment handled.' },
]);

async function startRun(harness: GateHarness) {
  const session = await harness.sessions.create({ principal: harness.runOptions.principal });
  const result = await runSession({
    ...harness.runOptions,
    sessions: harness.sessions,
    sessionId: session.id,
    userMessage: 'Pay invoice INV-77, 250.00 to AC2002',
    model,
    approvals: harness.broker,
  });
  const [approval] = harness.broker.listApprovals({ runId: result.runId });
  if (approval === undefined) throw new Error('expected an approval');
  return { session, result, approval };
}

function resolutionFailure(attempt: () => unknown): string {
  try {
    attempt();
  } catch (error) {
    if (ApprovalResolutionError.isInstance(error)) return `${error.failure}: ${error.message}`;
    throw error;
  }
  return 'recorded';
}

const request: ApprovalRequest = {
  runId: 'run-1',
  sessionId: undefined,
  step: 1,
  toolCallId: 'call_1',
  tool: 'send_payment',
  arguments: { account: 'AC2002', amount_cents: 25_000 },
  argumentsHash: 'hash-a',
  rule: 'payment_100_or_more',
  reason: 'Payments of 100.00 or more need a person.',
};
const signal = new AbortController().signal;

describe('SqliteApprovalBroker', () => {
  it('suspends the run with a pending approval and runs nothing when a call needs a person', async () => {
    const harness = openGateHarness();
    const { result, approval, session } = await startRun(harness);
    expect(result.stopReason).toBe('awaiting_approval');
    expect(countPayments(harness.store.database)).toBe(0);
    expect(approval).toMatchObject({
      status: 'pending',
      tool: 'send_payment',
      toolCallId: 'call_pay',
      rule: 'payment_100_or_more',
      arguments: { ...bigPayment, payer: 'U1' },
      sessionId: session.id,
    });
    expect(harness.seen.filter((event) => event.type === 'approval:required')).toHaveLength(1);
    expect((await harness.sessions.load(session.id))?.status).toBe('awaiting_approval');
    expect(harness.audit.listAudit()).toEqual([]);
  });

  it('runs the call exactly once when approved, and audits who approved it', async () => {
    const harness = openGateHarness();
    const { approval } = await startRun(harness);
    const outcome = await resumeAfterApproval({
      ...harness.runOptions,
      sessions: harness.sessions,
      broker: harness.broker,
      approvalId: approval.approvalId,
      decision: 'approve',
      approver: 'li.wei',
      model,
    });
    expect(outcome.status).toBe('resumed');
    if (outcome.status !== 'resumed') return;
    expect(outcome.result.stopReason).toBe('completed');
    expect(outcome.result.text).toBe('Payment handled.');
    expect(toolMessage(outcome.result.messages, 'call_pay')).toBe(
      '{"payment_id":1,"account":"AC2002","amount_cents":25000}',
    );
    expect(countPayments(harness.store.database)).toBe(1);
    expect(
      harness.audit
        .listAudit()
        .map(({ tool, decision, rule, approver, outcome }) => ({ tool, decision, rule, approver, outcome })),
    ).toEqual([
      { tool: 'send_payment', decision: 'approved', rule: 'payment_100_or_more', approver: 'li.wei', outcome: 'ok' },
    ]);
    expect(harness.broker.getApproval(approval.approvalId)?.consumedAt).toBeTypeOf('number');
  });

  it('tells the model the call was rejected, with the reason, and runs nothing when a person rejects it', async () => {
    const harness = openGateHarness();
    const { approval } = await startRun(harness);
    const outcome = await resumeAfterApproval({
      ...harness.runOptions,
      sessions: harness.sessions,
      broker: harness.broker,
      approvalId: approval.approvalId,
      decision: 'reject',
      approver: 'li.wei',
      reason: 'The invoice was already paid by bank transfer',
      model,
    });
    if (outcome.status !== 'resumed') throw new Error(outcome.status);
    expect(toolMessage(outcome.result.messages, 'call_pay')).toMatchInlineSnapshot(
      `"Refused (rejected_by_approver): A person reviewed this call and rejected it: The invoice was already paid by bank transfer. Do not call send_payment again for this; tell the user what happened."`,
    );
    expect(countPayments(harness.store.database)).toBe(0);
    expect(harness.audit.listAudit().map((entry) => [entry.decision, entry.approver, entry.outcome])).toEqual([
      ['rejected', 'li.wei', 'not_run'],
    ]);
  });

  it('denies the call as timed out when nobody decided before the approval expired', async () => {
    let clock = 1_000_000;
    const harness = openGateHarness({ now: () => clock, ttlMs: 60_000 });
    const { approval, session } = await startRun(harness);
    clock += 60_001;
    const late = () =>
      harness.broker.resolveApproval({ approvalId: approval.approvalId, decision: 'approve', approver: 'late' });
    expect(resolutionFailure(late)).toBe(
      `expired: approval ${approval.approvalId} expired at 1970-01-01T00:17:40.000Z and was denied`,
    );
    expect(harness.broker.getApproval(approval.approvalId)).toMatchObject({
      status: 'denied',
      decisionReason: 'timed out',
    });
    const resumed = await runSession({
      ...harness.runOptions,
      sessions: harness.sessions,
      sessionId: session.id,
      resume: true,
      model,
      approvals: harness.broker,
    });
    expect(toolMessage(resumed.messages, 'call_pay')).toMatchInlineSnapshot(
      `"Refused (approval_timed_out): This call needed a person’s approval and nobody approved it in time. Do not call send_payment again for this; tell the user what happened."`,
    );
    expect(countPayments(harness.store.database)).toBe(0);
  });

  it('explains in words why it refuses a decision on an unknown or already decided approval, or without an approver', async () => {
    const harness = openGateHarness();
    const first = await harness.broker.decide(request, { signal });
    const { approvalId } = first;
    expect(
      resolutionFailure(() =>
        harness.broker.resolveApproval({ approvalId: 'ap_nope', decision: 'approve', approver: 'x' }),
      ),
    ).toMatchInlineSnapshot(`"not_found: no approval ap_nope exists"`);
    expect(
      resolutionFailure(() => harness.broker.resolveApproval({ approvalId, decision: 'approve', approver: ' ' })),
    ).toContain('missing_approver');
    harness.broker.resolveApproval({ approvalId, decision: 'reject', approver: 'li.wei' });
    expect(
      resolutionFailure(() => harness.broker.resolveApproval({ approvalId, decision: 'approve', approver: 'mallory' })),
    ).toBe(`already_decided: approval ${approvalId} was already decided: rejected by li.wei`);
  });

  it('resumes only once every pending call of the turn is decided, and runs each approved call once', async () => {
    const harness = openGateHarness();
    const twoPayments = statelessModel([
      callsWithIds(
        ['call_a', 'send_payment', { account: 'AC2002', amount_cents: 25_000, reference: 'INV-1' }],
        ['call_b', 'send_payment', { account: 'AC3003', amount_cents: 40_000, reference: 'INV-2' }],
        ['call_c', 'read_balance', { account: 'AC1001' }],
      ),
      { role: 'assistant', content: 'Both paid.' },
    ]);
    const session = await harness.sessions.create({ principal: harness.runOptions.principal });
    const first = await runSession({
      ...harness.runOptions,
      sessions: harness.sessions,
      sessionId: session.id,
      userMessage: 'Pay both invoices',
      model: twoPayments,
      approvals: harness.broker,
    });
    expect(first.stopReason).toBe('awaiting_approval');
    const [approvalA, approvalB] = harness.broker.listApprovals({ runId: first.runId });
    if (approvalA === undefined || approvalB === undefined) throw new Error('expected two approvals');
    expect([approvalA.toolCallId, approvalB.toolCallId]).toEqual(['call_a', 'call_b']);

    const decide = (approvalId: string) =>
      resumeAfterApproval({
        ...harness.runOptions,
        sessions: harness.sessions,
        broker: harness.broker,
        approvalId,
        decision: 'approve',
        approver: 'li.wei',
        model: twoPayments,
      });
    const afterFirst = await decide(approvalB.approvalId);
    expect(afterFirst).toMatchObject({ status: 'waiting', pending: 1 });
    expect(countPayments(harness.store.database)).toBe(0);
    const afterSecond = await decide(approvalA.approvalId);
    if (afterSecond.status !== 'resumed') throw new Error(afterSecond.status);
    expect(afterSecond.result.stopReason).toBe('completed');
    expect(afterSecond.result.messages.filter((message) => message.role === 'tool')).toHaveLength(3);
    expect(countPayments(harness.store.database)).toBe(2);
    // In the model's order: the read after the held payments waited for them instead of running first.
    expect(harness.audit.listAudit().map((entry) => `${entry.toolCallId}:${entry.decision}:${entry.outcome}`)).toEqual([
      'call_a:approved:ok',
      'call_b:approved:ok',
      'call_c:allowed:ok',
    ]);
  });

  it('announces again, from the resumed run, an approval whose announcement never reached its event log, and only that one', async () => {
    // The process that asked died after recording the approval and before its `approval:required` was written.
    const harness = openGateHarness();
    const { session, approval } = await startRun(harness);
    const announcements = () =>
      harness.seen.filter((event) => event.type === 'approval:required').map((event) => event.approvalId);
    expect(announcements()).toEqual([approval.approvalId]);
    const resume = (announced: string[]) =>
      runSession({
        ...harness.runOptions,
        sessions: harness.sessions,
        sessionId: session.id,
        resume: true,
        model,
        approvals: harness.broker,
        announcedApprovals: () => announced,
      });

    const lost = await resume([]);
    expect(lost.stopReason).toBe('awaiting_approval');
    expect(announcements()).toEqual([approval.approvalId, approval.approvalId]);
    expect(harness.broker.listApprovals({ runId: lost.runId })).toHaveLength(1);

    const logged = await resume([approval.approvalId]);
    expect(logged.stopReason).toBe('awaiting_approval');
    expect(announcements()).toHaveLength(2);
    expect(countPayments(harness.store.database)).toBe(0);
  });

  it('replays the result of an approved call whose process died after running it, instead of calling it unknown', async () => {
    const harness = openGateHarness();
    const { session, approval } = await startRun(harness);
    harness.broker.resolveApproval({ approvalId: approval.approvalId, decision: 'approve', approver: 'li.wei' });
    // The first resume dies right after the payment ran: its result never reaches the journal, the run never ends.
    const sessions = harness.sessions;
    const journal: typeof sessions.journal = (options) => ({
      ...sessions.journal(options),
      findToolResult: () => undefined,
      recordToolResult: () => {
        throw new Error('the process died');
      },
      commitStep: () => {},
    });
    const dying = new Proxy(sessions, {
      get(target, property) {
        if (property === 'journal') return journal;
        if (property === 'endRun') return async () => {};
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const resume = (sessions: typeof harness.sessions) =>
      runSession({
        ...harness.runOptions,
        sessions,
        sessionId: session.id,
        resume: true,
        model,
        approvals: harness.broker,
      });
    await resume(dying).catch(() => undefined);
    expect(countPayments(harness.store.database)).toBe(1);

    const resumed = await resume(harness.sessions);
    expect(resumed.stopReason).toBe('completed');
    expect(countPayments(harness.store.database)).toBe(1);
    const answer = resumed.messages.find((message) => message.role === 'tool');
    expect(answer?.content).not.toContain('outcome_unknown');
    expect(harness.audit.listAudit().map((entry) => `${entry.decision}:${entry.outcome}`)).toEqual([
      'approved:ok',
      'approved:replayed:ok',
    ]);
  });
});
