import { describe, expect, it } from 'vitest';
import { runAgent } from '../loop/run-agent.js';
import { calls, sequenceModel } from '../loop/test-support/sequence-model.js';
import { openSqliteBackend } from '../store/sqlite/open-sqlite-backend.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import type { AuditEntry } from './audit-log.js';
import { createInlineApprover } from './create-inline-approver.js';
import { createTierGate } from './tier-gate.js';

const principal = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] };
const checked = () => ({ verdict: 'require_approval' as const, rule: 'checked_by_staff', reason: 'Staff check it.' });

/** One call of `tool` under an inline approver that reads the audit while it is asked, then rejects. */
async function heldWhileAsked(egress: boolean) {
  const backend = openSqliteBackend({ path: ':memory:' });
  try {
    const tools = new ToolRegistry().register(
      defineTool<{ to: string }>({
        name: 'send_email',
        description: 'Send an e-mail. Not for notes on an order: use add_order_note.',
        parameters: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] },
        sideEffect: 'reversible',
        ...(egress ? { egress } : {}),
        approval: checked,
        execute: () => ({ sent: true }),
      }),
    );
    let whileAsked: readonly AuditEntry[] = [];
    const result = await runAgent({
      model: sequenceModel([
        calls(['send_email', { to: 'li@shop.example' }]),
        { role: 'assistant', content: 'Not sent.' },
      ]),
      tools,
      messages: [{ role: 'user', content: 'Mail Li.' }],
      principal,
      gate: createTierGate({ tools }),
      audit: backend.audit,
      approvals: createInlineApprover({
        ask: async (request) => {
          whileAsked = backend.audit.listAudit({ runId: request.runId });
          return { decision: 'reject', approver: 'staff-li', reason: 'Not today.' };
        },
      }),
    });
    const row = ({ tool, decision, rule, approver, outcome }: AuditEntry) => ({
      tool,
      decision,
      rule,
      approver,
      outcome,
    });
    return {
      result,
      whileAsked: whileAsked.map(row),
      after: backend.audit.listAudit({ runId: result.runId }).map(row),
      chain: backend.audit.verifyChain().ok,
    };
  } finally {
    backend.close();
  }
}

describe('the audit of an egress call held for a person', () => {
  it('shows the held mail while the person is asked, then how it ended, in a chain that verifies', async () => {
    const { whileAsked, after, chain } = await heldWhileAsked(true);
    const held = {
      tool: 'send_email',
      decision: 'denied',
      rule: 'checked_by_staff',
      approver: undefined,
      outcome: 'awaiting_approval',
    };
    expect(whileAsked).toEqual([held]);
    expect(after).toEqual([
      held,
      { tool: 'send_email', decision: 'rejected', rule: 'checked_by_staff', approver: 'staff-li', outcome: 'not_run' },
    ]);
    expect(chain).toBe(true);
  });

  it('writes no held row for a call that sends nothing outside', async () => {
    const { whileAsked, after } = await heldWhileAsked(false);
    expect(whileAsked).toEqual([]);
    expect(after.map((entry) => entry.outcome)).toEqual(['not_run']);
  });
});
