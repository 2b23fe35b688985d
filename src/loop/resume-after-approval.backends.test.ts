/**
 * Approve and continue in code on each backend, with the backend's own
 * `approvals` (the `ApprovalStore` interface): the run's result names the
 * calls it waits for, `listApprovals` reads the same from the store, and
 * `resumeAfterApproval` decides and continues the run, the call executed once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTierGate } from '../gate/tier-gate.js';
import type { Backend } from '../store/backend.js';
import { openPostgresBackend } from '../store/postgres/open-postgres-backend.js';
import { setUpPostgresCluster } from '../store/postgres/test-support/postgres-cluster.js';
import { openSqliteBackend } from '../store/sqlite/open-sqlite-backend.js';
import { callsWithIds, statelessModel } from '../store/sqlite/test-support/gate-harness.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { resumeAfterApproval } from './resume-after-approval.js';
import { runSession } from './run-session.js';

const cluster = setUpPostgresCluster();
const opened: Backend[] = [];
afterAll(async () => {
  for (const backend of opened.splice(0)) await backend.close();
});

const backends: { name: string; skip: boolean; open: () => Promise<Backend> }[] = [
  { name: 'SQLite', skip: false, open: async () => openSqliteBackend({ path: ':memory:' }) },
  {
    name: 'PostgreSQL',
    skip: cluster.skip,
    open: () => openPostgresBackend({ connectionString: cluster.connectionString, schema: cluster.freshSchema() }),
  },
];

function refundFlow() {
  const refunds: { order_id: string; amount_cents: number }[] = [];
  const applyRefund = defineTool({
    name: 'apply_refund',
    description: 'Refund an order. Not for looking one up: use query_order.',
    parameters: z.object({ order_id: z.string(), amount_cents: z.number().int().positive() }),
    sideEffect: 'irreversible',
    execute: (args) => {
      refunds.push(args);
      return { refund: `RF-${args.order_id}` };
    },
  });
  const model = statelessModel([
    callsWithIds(
      ['call_1', 'apply_refund', { order_id: 'SO20260901', amount_cents: 8600 }],
      ['call_2', 'apply_refund', { order_id: 'SO20260902', amount_cents: 1200 }],
    ),
    { role: 'assistant', content: 'Both refunded.' },
  ]);
  return { refunds, tools: new ToolRegistry().register(applyRefund), model, gate: createTierGate() };
}

describe.each(backends)('approve and continue in code on $name', ({ skip, open }) => {
  it.skipIf(skip)(
    "carries the pending approvals on the result and resumes with the backend's approvals",
    async () => {
      const backend = await open();
      opened.push(backend);
      const { refunds, ...run } = refundFlow();
      const { sessions, approvals } = backend;
      const session = await sessions.create();
      const result = await runSession({
        ...run,
        sessions,
        sessionId: session.id,
        userMessage: 'Refund both',
        approvals,
      });

      expect(result.stopReason).toBe('awaiting_approval');
      const listed = await approvals.listApprovals({ runId: result.runId, status: 'pending' });
      expect(result.pendingApprovals).toEqual(
        listed.map(({ approvalId, toolCallId, tool, arguments: args, rule, reason }) => ({
          approvalId,
          toolCallId,
          tool,
          arguments: args,
          rule,
          reason,
        })),
      );
      expect(
        result.pendingApprovals.map(({ toolCallId, tool, arguments: args, rule }) => [toolCallId, tool, args, rule]),
      ).toEqual([
        ['call_1', 'apply_refund', { order_id: 'SO20260901', amount_cents: 8600 }, 'irreversible_default'],
        ['call_2', 'apply_refund', { order_id: 'SO20260902', amount_cents: 1200 }, 'irreversible_default'],
      ]);
      expect(refunds).toEqual([]);

      const [first, second] = result.pendingApprovals;
      if (first === undefined || second === undefined) throw new Error('two approvals expected');
      const decide = (approvalId: string) =>
        resumeAfterApproval({
          ...run,
          sessions,
          broker: approvals,
          approvalId,
          decision: 'approve',
          approver: 'li.wei',
        });
      expect(await decide(first.approvalId)).toMatchObject({ status: 'waiting', pending: 1 });
      expect(refunds).toEqual([]);
      const resumed = await decide(second.approvalId);
      if (resumed.status !== 'resumed') throw new Error(`not resumed: ${resumed.status}`);
      expect(resumed.result).toMatchObject({ stopReason: 'completed', text: 'Both refunded.', pendingApprovals: [] });
      expect(refunds).toEqual([
        { order_id: 'SO20260901', amount_cents: 8600 },
        { order_id: 'SO20260902', amount_cents: 1200 },
      ]);
      expect(await approvals.listApprovals({ status: 'pending' })).toEqual([]);
    },
    120_000,
  );
});
