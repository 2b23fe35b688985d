import { describe, expect, it } from 'vitest';
import type { CallHistoryFilter, CallHistorySource } from '../../core/call-history.js';
import type { AuditEntry, AuditLog } from '../../gate/audit-log.js';
import { type CreateBackend, openFreshBackends } from './contract-backend.js';

const row = (overrides: Partial<AuditEntry>): AuditEntry => ({
  at: 1_000,
  sessionId: 'session-a',
  runId: 'run-a',
  step: 1,
  toolCallId: 'call_1',
  tool: 'send_payment',
  sideEffect: 'irreversible',
  argumentsHash: 'hash',
  arguments: { amount_cents: 100 },
  decision: 'auto_approved',
  rule: 'payment_under_100',
  approver: undefined,
  tenantId: 'bank',
  userId: 'U1',
  outcome: 'ok',
  durationMs: 1,
  ...overrides,
});

/**
 * The behaviour every audit log that rules read history from must have
 * (`AuditLog` and `CallHistorySource`): what was appended is found again in
 * append order, only calls that ran and succeeded count, and a query for
 * one principal never returns another tenant's or user's calls.
 *
 * @example
 * describeAuditLogContract('MemoryAuditLog', () => ({ audit: new MemoryAuditLog() }));
 */
export function describeAuditLogContract(
  name: string,
  createBackend: CreateBackend<{ readonly audit: AuditLog & CallHistorySource }>,
): void {
  describe(`${name} (AuditLog contract)`, () => {
    const open = openFreshBackends(createBackend);
    const ids = async (audit: CallHistorySource, filter: CallHistoryFilter) =>
      (await audit.findCalls(filter)).map((call) => call.toolCallId);

    it('finds nothing before anything was appended, and nothing for a tool that never ran', async () => {
      const { backend } = await open();
      expect(await backend.audit.findCalls({ tool: 'send_payment' })).toEqual([]);
      await backend.audit.append(row({}));
      expect(await backend.audit.findCalls({ tool: 'close_account' })).toEqual([]);
    });

    it('finds the calls that ran and succeeded, narrowed by run, session, principal, time and decision', async () => {
      const { backend } = await open();
      const { audit } = backend;
      const entries = [
        row({ toolCallId: 'call_1' }),
        row({ toolCallId: 'call_2', runId: 'run-b', sessionId: 'session-b', at: 2_000 }),
        row({ toolCallId: 'call_3', userId: 'U2' }),
        row({ toolCallId: 'call_4', tenantId: 'other-bank' }),
        row({ toolCallId: 'call_5', decision: 'approved', approver: 'li.wei' }),
        row({ toolCallId: 'call_6', outcome: 'replayed:ok' }),
        row({ toolCallId: 'call_7', outcome: 'account_not_found' }),
        row({ toolCallId: 'call_8', decision: 'denied', outcome: 'not_run' }),
        row({ toolCallId: 'call_9', tool: 'read_balance', decision: 'allowed' }),
        row({ toolCallId: 'call_10', tenantId: undefined, userId: undefined }),
      ];
      for (const entry of entries) await audit.append(entry);
      expect(await ids(audit, { tool: 'send_payment' })).toEqual([
        'call_1',
        'call_2',
        'call_3',
        'call_4',
        'call_5',
        'call_10',
      ]);
      expect(await ids(audit, { tool: 'send_payment', runId: 'run-b' })).toEqual(['call_2']);
      expect(await ids(audit, { tool: 'send_payment', sessionId: 'session-a', decisions: ['auto_approved'] })).toEqual([
        'call_1',
        'call_3',
        'call_4',
        'call_10',
      ]);
      expect(await ids(audit, { tool: 'send_payment', tenantId: 'bank', userId: 'U1' })).toEqual([
        'call_1',
        'call_2',
        'call_5',
      ]);
      expect(await ids(audit, { tool: 'send_payment', tenantId: 'bank', userId: 'U1', since: 1_500 })).toEqual([
        'call_2',
      ]);
      expect(await ids(audit, { tool: 'send_payment', tenantId: null, userId: null })).toEqual(['call_10']);
      expect((await audit.findCalls({ tool: 'send_payment', runId: 'run-b' }))[0]).toEqual({
        at: 2_000,
        runId: 'run-b',
        sessionId: 'session-b',
        toolCallId: 'call_2',
        tool: 'send_payment',
        arguments: { amount_cents: 100 },
        decision: 'auto_approved',
        rule: 'payment_under_100',
      });
    });

    it("never shows one tenant's calls to another tenant's user with the same id", async () => {
      const { backend } = await open();
      await backend.audit.append(row({ toolCallId: 'call_bank', tenantId: 'bank', userId: 'U1' }));
      await backend.audit.append(row({ toolCallId: 'call_shop', tenantId: 'shop', userId: 'U1' }));
      expect(await ids(backend.audit, { tool: 'send_payment', tenantId: 'shop', userId: 'U1' })).toEqual(['call_shop']);
      expect(await ids(backend.audit, { tool: 'send_payment', tenantId: 'elsewhere', userId: 'U1' })).toEqual([]);
    });

    it('keeps both rows when the same call is audited twice (an append-only log)', async () => {
      const { backend } = await open();
      await backend.audit.append(row({ toolCallId: 'call_1', at: 1_000 }));
      await backend.audit.append(row({ toolCallId: 'call_1', at: 1_001 }));
      expect((await backend.audit.findCalls({ tool: 'send_payment' })).map((call) => call.at)).toEqual([1_000, 1_001]);
    });

    it('answers in append order, not in the order of the entries’ times', async () => {
      const { backend } = await open();
      await backend.audit.append(row({ toolCallId: 'late', at: 3_000 }));
      await backend.audit.append(row({ toolCallId: 'early', at: 1_000 }));
      expect(await ids(backend.audit, { tool: 'send_payment' })).toEqual(['late', 'early']);
    });
  });
}
