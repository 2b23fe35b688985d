import { afterEach, describe, expect, it } from 'vitest';
import { createTierGate } from '../../gate/tier-gate.js';
import { SqliteApprovalBroker } from '../../store/sqlite/sqlite-approval-broker.js';
import { SqliteAuditLog } from '../../store/sqlite/sqlite-audit-log.js';
import { SqliteIdempotencyStore } from '../../store/sqlite/sqlite-idempotency-store.js';
import { ServerRuns } from '../../store/sqlite/sqlite-server-runs.js';
import { openSqliteStore, type SqliteStore } from '../../store/sqlite/sqlite-store.js';
import { defineTool } from '../../tools/define-tool.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import { callToolThroughGate, type McpToolPipeline } from './call-tool-through-gate.js';

const stores: SqliteStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});

const itemParameters = {
  type: 'object',
  properties: { item: { type: 'string', description: 'Item code', pattern: '^I\\d{3}$', examples: ['I001'] } },
  required: ['item'],
  additionalProperties: false,
} as const;

function pipeline(): { pipeline: McpToolPipeline; failures: unknown[]; executions: string[]; audit: SqliteAuditLog } {
  const store = openSqliteStore({ path: ':memory:' });
  stores.push(store);
  const failures: unknown[] = [];
  const executions: string[] = [];
  const tools = new ToolRegistry();
  tools.register(
    defineTool<{ item: string }>({
      name: 'break_item',
      description: 'Breaks on purpose. Use it to test failures; not for anything else.',
      parameters: itemParameters,
      sideEffect: 'reversible',
      execute: () => {
        throw new Error('connect ECONNREFUSED 10.0.0.7:5432 at /srv/app/db.js:12');
      },
    }),
  );
  tools.register(
    defineTool<{ item: string }>({
      name: 'scrap_item',
      description: 'Scraps an item for good. Use it to remove stock; not for a return (there is no sibling here).',
      parameters: itemParameters,
      sideEffect: 'irreversible',
      execute: ({ item }) => {
        executions.push(item);
        return { scrapped: item };
      },
    }),
  );
  const audit = new SqliteAuditLog({ database: store.database });
  return {
    failures,
    executions,
    audit,
    pipeline: {
      tools,
      gate: createTierGate({ rules: [], tools }),
      approvals: new SqliteApprovalBroker({ database: store.database }),
      idempotency: new SqliteIdempotencyStore({ database: store.database }),
      audit,
      runs: new ServerRuns({ database: store.database }),
      onError: (error) => failures.push(error),
    },
  };
}

const principal = { tenantId: 't1', userId: 'u1', roles: [] };

describe('callToolThroughGate', () => {
  it('answers a tool’s infrastructure failure without its internals, and hands the error to the operator', async () => {
    const { pipeline: through, failures } = pipeline();
    const result = await callToolThroughGate({
      pipeline: through,
      principal,
      name: 'break_item',
      arguments: { item: 'I001' },
    });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      {
        type: 'text',
        text: 'break_item failed on the server; it may or may not have taken effect. The failure was logged for the operator: do not repeat the call, tell the user.',
      },
    ]);
    expect(JSON.stringify(result)).not.toMatch(/ECONNREFUSED|10\.0\.0\.7|db\.js/);
    expect(failures).toHaveLength(1);
  });

  it('holds an irreversible call without a rule of its own, runs it once after approval, in Chinese on request', async () => {
    const { pipeline: through, executions, audit } = pipeline();
    const scrap = {
      pipeline: through,
      principal,
      name: 'scrap_item',
      arguments: { item: 'I002' },
      locale: 'zh-CN' as const,
    };
    const held = await callToolThroughGate(scrap);
    const { approvalId } = held.structuredContent as { approvalId: string };
    expect((held.content as { text: string }[])[0]?.text).toContain(`尚未执行：它需要人工确认（确认单 ${approvalId}）`);
    expect(executions).toEqual([]);
    await through.approvals.resolveApproval({ approvalId, decision: 'approve', approver: 'boss' });
    const ran = await callToolThroughGate(scrap);
    expect(ran.structuredContent).toEqual({ scrapped: 'I002' });
    const again = await callToolThroughGate(scrap);
    expect((again.structuredContent as { status: string }).status).toBe('awaiting_approval');
    expect(executions).toEqual(['I002']);
    const rows = audit.listAudit().filter((row) => row.outcome === 'ok');
    expect(rows).toEqual([
      expect.objectContaining({ tool: 'scrap_item', approver: 'boss', tenantId: 't1', userId: 'u1' }),
    ]);
  });

  it('refuses arguments that are not an object the schema accepts, and a tool that does not exist', async () => {
    const { pipeline: through } = pipeline();
    const extra = await callToolThroughGate({
      pipeline: through,
      principal,
      name: 'scrap_item',
      arguments: { item: 'I003', force: true },
    });
    expect(extra.isError).toBe(true);
    expect((extra.content as { text: string }[])[0]?.text).toContain('force');
    const unknown = await callToolThroughGate({ pipeline: through, principal, name: '__proto__', arguments: {} });
    expect(unknown.isError).toBe(true);
    expect((unknown.content as { text: string }[])[0]?.text).toContain('scrap_item');
  });
});
