import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../gate/approval-broker.js';
import { openPostgresBackend, type PostgresBackend } from './open-postgres-backend.js';
import { setUpPostgresCluster } from './test-support/postgres-cluster.js';

// What every approval broker does is in the ApprovalBroker contract (postgres-backend.contract.test.ts).
const cluster = setUpPostgresCluster();
const signal = new AbortController().signal;
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

describe.skipIf(cluster.skip)('PostgresApprovalBroker', () => {
  const opened: PostgresBackend[] = [];
  afterEach(async () => {
    for (const backend of opened.splice(0)) await backend.close();
  });

  it('records one approval when two nodes ask at once, and lets the approved call through on exactly one', async () => {
    const schema = cluster.freshSchema();
    const [first, second] = (await Promise.all(
      [1, 2].map(() => openPostgresBackend({ connectionString: cluster.connectionString, schema })),
    )) as [PostgresBackend, PostgresBackend];
    opened.push(first, second);
    for (let round = 0; round < 10; round += 1) {
      const asked = { ...request, runId: `run-${round}` };
      const announced: string[] = [];
      const options = { signal, onRequired: (approvalId: string) => void announced.push(approvalId) };
      const pending = await Promise.all([
        first.approvals.decide(asked, options),
        second.approvals.decide(asked, options),
      ]);
      expect(new Set(pending.map((state) => state.approvalId)).size).toBe(1);
      expect(announced).toHaveLength(1);
      const approvalId = announced[0] as string;
      await second.approvals.resolveApproval({ approvalId, decision: 'approve', approver: 'li.wei' });
      const resumed = await Promise.all([
        first.approvals.decide(asked, { signal }),
        second.approvals.decide(asked, { signal }),
      ]);
      expect(resumed.map((state) => state.status).sort()).toEqual(['approved', 'denied']);
      expect(resumed.find((state) => state.status === 'denied')).toMatchObject({ code: 'approval_used' });
      expect(await first.approvals.getApproval(approvalId)).toMatchObject({ status: 'approved', approver: 'li.wei' });
    }
    expect(await first.approvals.listApprovals({ status: 'approved' })).toHaveLength(10);
    expect(await first.approvals.countPending({ runId: 'run-0' })).toBe(0);
  });
});
