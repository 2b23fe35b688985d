import { describe, expect, it } from 'vitest';
import { auditToolCall } from './audit-tool-call.js';
import { gatedCallFixture } from './test-support/gated-call-fixture.js';

describe('auditToolCall', () => {
  it('records the call with how the gate decided, the principal and the outcome', async () => {
    const { runtime, call, audited } = gatedCallFixture();
    call.decision = 'approved';
    call.rule = 'refund_50_or_more';
    call.approver = 'li.wei';
    await auditToolCall(runtime, call, 'ok');
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({
      runId: 'run_1',
      sessionId: 'session_1',
      step: 1,
      toolCallId: 'call_1',
      tool: 'apply_refund',
      sideEffect: 'irreversible',
      argumentsHash: 'hash_1',
      decision: 'approved',
      rule: 'refund_50_or_more',
      approver: 'li.wei',
      tenantId: 'shop',
      userId: 'C1001',
      outcome: 'ok',
    });
    expect(audited[0]).not.toHaveProperty('replayOf');
  });

  it('names the original call of a replay, and does nothing without an audit log', async () => {
    const { runtime, call, audited } = gatedCallFixture();
    await auditToolCall(runtime, call, 'replayed:ok', { runId: 'run_0', toolCallId: 'call_0' });
    expect(audited[0]?.replayOf).toEqual({ runId: 'run_0', toolCallId: 'call_0' });
    expect(auditToolCall({ ...runtime, audit: undefined }, call, 'ok')).toBeUndefined();
  });

  it('writes every entry with its keys in one order, with or without a principal, a replay or a pinned definition', async () => {
    const order = [
      'at',
      'sessionId',
      'runId',
      'step',
      'toolCallId',
      'tool',
      'sideEffect',
      'argumentsHash',
      'arguments',
      'decision',
      'rule',
      'approver',
      'tenantId',
      'userId',
      'replayOf',
      'toolFingerprint',
      'outcome',
      'durationMs',
    ];
    const usual = gatedCallFixture();
    await auditToolCall(usual.runtime, usual.call, 'ok');
    const pinned = gatedCallFixture();
    const definition = { ...pinned.call.tool.definition, fingerprint: 'sha256:abc' };
    const pinnedCall = { ...pinned.call, tool: { ...pinned.call.tool, definition } };
    await auditToolCall(pinned.runtime, pinnedCall, 'replayed:ok', { runId: 'run_0', toolCallId: 'call_0' });
    const anonymous = gatedCallFixture();
    await auditToolCall({ ...anonymous.runtime, principal: undefined }, anonymous.call, 'ok');
    const keys = (entry: object | undefined) => Object.keys(entry ?? {});
    expect(keys(usual.audited[0])).toEqual(order.filter((key) => key !== 'replayOf' && key !== 'toolFingerprint'));
    expect(keys(pinned.audited[0])).toEqual(order);
    expect(keys(anonymous.audited[0])).toEqual(
      order.filter((key) => !['tenantId', 'userId', 'replayOf', 'toolFingerprint'].includes(key)),
    );
    expect(usual.audited[0]).toMatchObject({ tenantId: 'shop', userId: 'C1001', outcome: 'ok', step: 1 });
  });
});
