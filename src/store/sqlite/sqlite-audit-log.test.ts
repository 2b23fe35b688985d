import { describe, expect, it } from 'vitest';
import { runAgent } from '../../loop/run-agent.js';
import { argumentsHash } from '../../util/sha256.js';
import { callsWithIds, openGateHarness, statelessModel } from './test-support/gate-harness.js';

const cardPayment = { account: 'AC2002', amount_cents: 5_000, reference: 'INV-5', card_number: '4111 1111 1111 1111' };

async function auditedRun() {
  const harness = openGateHarness();
  await runAgent({
    ...harness.runOptions,
    sessionId: 'session-1',
    model: statelessModel([
      callsWithIds(
        ['call_read', 'read_balance', { account: 'AC2002' }],
        ['call_tag', 'tag_account', { account: 'AC2002', tag: 'vip' }],
      ),
      callsWithIds(['call_pay', 'send_payment', cardPayment], ['call_close', 'close_account', { account: 'AC2002' }]),
    ]),
    messages: [{ role: 'user', content: 'Pay with my card 4111 1111 1111 1111' }],
  });
  return harness;
}

describe('SqliteAuditLog', () => {
  it('records every call with its tier, decision and outcome, in order', async () => {
    const harness = await auditedRun();
    const rows = harness.audit.listAudit({ sessionId: 'session-1' });
    expect(
      rows.map(({ toolCallId, sideEffect, decision, rule, outcome }) => ({
        toolCallId,
        sideEffect,
        decision,
        rule,
        outcome,
      })),
    ).toEqual([
      { toolCallId: 'call_read', sideEffect: 'read', decision: 'allowed', rule: undefined, outcome: 'ok' },
      { toolCallId: 'call_tag', sideEffect: 'reversible', decision: 'allowed', rule: undefined, outcome: 'ok' },
      {
        toolCallId: 'call_pay',
        sideEffect: 'irreversible',
        decision: 'auto_approved',
        rule: 'payment_under_100',
        outcome: 'ok',
      },
      {
        toolCallId: 'call_close',
        sideEffect: 'irreversible',
        decision: 'denied',
        rule: 'irreversible_default',
        outcome: 'not_run',
      },
    ]);
    expect(harness.audit.listAudit({ sessionId: 'other' })).toEqual([]);
  });

  it('keeps sensitive fields out of the row while hashing the full arguments', async () => {
    const harness = await auditedRun();
    const [payment] = harness.audit.listAudit({ toolCallId: 'call_pay' });
    expect(payment?.arguments).toEqual({ ...cardPayment, card_number: '[redacted]', tenant: 'bank', payer: 'U1' });
    expect(payment?.argumentsHash).toBe(argumentsHash({ ...cardPayment, tenant: 'bank', payer: 'U1' }));
    const raw = harness.store.database.prepare('SELECT * FROM audit_log').all();
    expect(JSON.stringify(raw)).not.toContain('4111');
  });

  it('refuses UPDATE and DELETE on its rows at the database level', async () => {
    const harness = await auditedRun();
    const database = harness.store.database;
    expect(() =>
      database.prepare("UPDATE audit_log SET decision = 'approved' WHERE tool_call_id = 'call_close'").run(),
    ).toThrowErrorMatchingInlineSnapshot(`[SqliteError: audit_log is append-only: rows cannot be updated]`);
    expect(() => database.prepare('DELETE FROM audit_log').run()).toThrowErrorMatchingInlineSnapshot(
      `[SqliteError: audit_log is append-only: rows cannot be deleted]`,
    );
    expect(harness.audit.listAudit()).toHaveLength(4);
  });

  it('records whose call it was, tenant and user, on every row', async () => {
    const harness = await auditedRun();
    expect(new Set(harness.audit.listAudit().map(({ tenantId, userId }) => `${tenantId}/${userId}`))).toEqual(
      new Set(['bank/U1']),
    );
    expect(harness.audit.listAudit()[0]?.replayOf).toBeUndefined();
  });
});
