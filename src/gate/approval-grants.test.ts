import { describe, expect, it } from 'vitest';
import type { Locale } from '../core/locale.js';
import type { Principal } from '../core/principal.js';
import { resumeAfterApproval } from '../loop/resume-after-approval.js';
import { runSession } from '../loop/run-session.js';
import { ScriptedModel } from '../models/scripted-model.js';
import { SqliteApprovalBroker } from '../store/sqlite/sqlite-approval-broker.js';
import { SqliteAuditLog } from '../store/sqlite/sqlite-audit-log.js';
import { SqliteSessionStore } from '../store/sqlite/sqlite-session-store.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { createTierGate, type GateRule } from './tier-gate.js';

// Approvals are grants: bound to the rules they were asked under and good until they expire. A grant used
// under changed rules or after its expiry is void, the call does not run, and the model is told why.
const principal: Principal = { tenantId: 'bank', userId: 'U1', roles: [] };
const hour = 3_600_000;

function scenario({ grantTtlMs = 24 * hour }: { grantTtlMs?: number } = {}) {
  const store = openSqliteStore({ path: ':memory:' });
  const clock = { now: Date.now() };
  const { database } = store;
  const sessions = new SqliteSessionStore({ database });
  const broker = new SqliteApprovalBroker({ database, grantTtlMs, now: () => clock.now });
  const audit = new SqliteAuditLog({ database });
  const paid: unknown[] = [];
  const tools = new ToolRegistry().register(
    defineTool({
      name: 'send_payment',
      description: 'Sends a payment from the customer account. Not for refunds.',
      parameters: {
        type: 'object',
        properties: { amount_cents: { type: 'integer', description: 'Amount in cents.' } },
        required: ['amount_cents'],
        additionalProperties: false,
      },
      sideEffect: 'reversible',
      execute: async (args) => {
        paid.push(args);
        return { sent: true };
      },
    }),
  );
  const rules = (limit: number): GateRule[] => [
    {
      tool: 'send_payment',
      when: { field: 'amount_cents', atLeast: limit },
      effect: 'require_approval',
      rule: 'large_payment',
      message: 'Large payments need a person.',
    },
  ];
  const model = () =>
    new ScriptedModel({
      script: {
        name: 'pay',
        turns: [{ steps: [{ call: { name: 'send_payment', arguments: { amount_cents: 50_000 } } }, { say: 'done' }] }],
        onUnclearError: 'give_up',
      },
    });
  /** What every run of the scenario shares: the rules in force (a payment from `limit` needs a person). */
  const run = (limit: number, locale: Locale) => ({
    sessions,
    model: model(),
    tools,
    principal,
    gate: createTierGate({ rules: rules(limit), tools }),
    approvals: broker,
    audit,
    locale,
  });
  const ask = async (locale: Locale = 'en') => {
    const session = await sessions.create({ principal });
    const first = await runSession({ ...run(10_000, locale), sessionId: session.id, userMessage: 'pay' });
    expect(first.stopReason).toBe('awaiting_approval');
    const [pending] = broker.listApprovals({ runId: first.runId });
    if (pending === undefined) throw new Error('no approval asked');
    return { sessionId: session.id, approvalId: pending.approvalId };
  };
  const resume = (approvalId: string, limit: number, locale: Locale = 'en') =>
    resumeAfterApproval({ ...run(limit, locale), broker, approvalId, decision: 'approve', approver: 'li.wei' });
  /** Resumes the suspended run of `sessionId` (as the server does once nothing is pending), deciding nothing. */
  const resumeRun = (sessionId: string, locale: Locale) =>
    runSession({ ...run(10_000, locale), sessionId, resume: true });
  const toolText = async (sessionId: string) =>
    ((await sessions.load(sessionId))?.messages ?? [])
      .filter((message) => message.role === 'tool')
      .map((message) => message.content)
      .join('\n');
  return { store, clock, broker, audit, paid, ask, resume, resumeRun, toolText };
}

describe('approval grants', () => {
  it('runs the call approved under the rules it was asked under, and records the grant', async () => {
    const { store, broker, paid, ask, resume } = scenario();
    try {
      const { approvalId } = await ask();
      expect((await resume(approvalId, 10_000)).status).toBe('resumed');
      expect(paid).toEqual([{ amount_cents: 50_000 }]);
      expect(broker.getApproval(approvalId)).toMatchObject({
        status: 'approved',
        policyVersion: expect.stringMatching(/^rules-[0-9a-f]{12}$/),
        grantExpiresAt: expect.any(Number),
      });
    } finally {
      store.close();
    }
  });

  it('voids the approval when the rules changed before the call ran: nothing is paid, the model is told why', async () => {
    const { store, broker, audit, paid, ask, resume, toolText } = scenario();
    try {
      const { sessionId, approvalId } = await ask();
      // The operator tightens the rule (a new configuration) while the approval waits.
      expect((await resume(approvalId, 20_000)).status).toBe('resumed');
      expect(paid).toEqual([]);
      expect(await toolText(sessionId)).toContain('The rules for this call changed after a person approved it');
      expect(broker.getApproval(approvalId)).toMatchObject({ status: 'denied', decisionReason: 'policy_changed' });
      expect(audit.listAudit({ sessionId }).map((row) => [row.decision, row.outcome])).toContainEqual([
        'denied',
        'not_run',
      ]);
    } finally {
      store.close();
    }
  });

  it('voids an approval not used before its grant expired, and says so in Chinese to a zh-CN run', async () => {
    const { store, clock, broker, paid, ask, resumeRun, toolText } = scenario({ grantTtlMs: hour });
    try {
      const { sessionId, approvalId } = await ask('zh-CN');
      // A person approves now; the run resumes only two hours later (its node was down).
      broker.resolveApproval({ approvalId, decision: 'approve', approver: 'li.wei' });
      clock.now += 2 * hour;
      await resumeRun(sessionId, 'zh-CN');
      expect(paid).toEqual([]);
      expect(await toolText(sessionId)).toContain('确认已过期');
      expect(broker.getApproval(approvalId)).toMatchObject({ status: 'denied', decisionReason: 'grant_expired' });
    } finally {
      store.close();
    }
  });
});
