import { describe, expect, it } from 'vitest';
import type { AuditEntry, AuditLog } from './audit-log.js';
import { MemoryAuditLog } from './memory-audit-log.js';

function entry(overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    at: 1_000,
    sessionId: 's1',
    runId: 'r1',
    step: 1,
    toolCallId: 'c1',
    tool: 'apply_refund',
    sideEffect: 'irreversible',
    argumentsHash: 'hash',
    arguments: { order_id: 'SO20260901', amount: 20 },
    decision: 'allowed',
    rule: undefined,
    approver: undefined,
    tenantId: 'shop',
    userId: 'C1001',
    outcome: 'ok',
    durationMs: 1.5,
    ...overrides,
  };
}

describe('MemoryAuditLog', () => {
  it('finds the calls that executed, scoped by run, session, principal and time, and passes every entry on', () => {
    const forwarded: AuditEntry[] = [];
    const forwardTo: AuditLog = { append: (appended) => void forwarded.push(appended) };
    const log = new MemoryAuditLog({ forwardTo });
    const entries = [
      entry(),
      entry({ toolCallId: 'c2', runId: 'r2', sessionId: 's2', at: 2_000, decision: 'auto_approved', rule: 'small' }),
      entry({ toolCallId: 'c3', outcome: 'refund_refused' }),
      entry({ toolCallId: 'c4', decision: 'denied' }),
      entry({ toolCallId: 'c5', userId: 'C1002' }),
      entry({ toolCallId: 'c6', tool: 'query_order' }),
      entry({ toolCallId: 'c7', tenantId: undefined, userId: undefined }),
    ];
    for (const appended of entries) log.append(appended);
    expect(forwarded).toEqual(entries);
    const ids = (calls: readonly { toolCallId: string }[]) => calls.map((call) => call.toolCallId);
    expect(ids(log.findCalls({ tool: 'apply_refund', runId: 'r1' }))).toEqual(['c1', 'c5', 'c7']);
    expect(ids(log.findCalls({ tool: 'apply_refund', sessionId: 's2' }))).toEqual(['c2']);
    expect(ids(log.findCalls({ tool: 'apply_refund', tenantId: 'shop', userId: 'C1001', since: 0 }))).toEqual([
      'c1',
      'c2',
    ]);
    expect(ids(log.findCalls({ tool: 'apply_refund', tenantId: null, userId: null }))).toEqual(['c7']);
    expect(ids(log.findCalls({ tool: 'apply_refund', runId: 'r1', since: 1_500 }))).toEqual([]);
    expect(ids(log.findCalls({ tool: 'apply_refund', decisions: ['auto_approved'] }))).toEqual(['c2']);
    expect(log.findCalls({ tool: 'apply_refund', sessionId: 's2' })).toEqual([
      {
        at: 2_000,
        runId: 'r2',
        sessionId: 's2',
        toolCallId: 'c2',
        tool: 'apply_refund',
        arguments: { order_id: 'SO20260901', amount: 20 },
        decision: 'auto_approved',
        rule: 'small',
      },
    ]);
  });
});
