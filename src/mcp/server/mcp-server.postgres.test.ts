import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { AssembledServer } from '../../server/create-server.js';
import type { RunningServer } from '../../server/start-server.js';
import { startPostgresTestNode } from '../../server/test-support/postgres-test-node.js';
import { testTokens } from '../../server/test-support/test-server.js';
import { setUpPostgresCluster } from '../../store/postgres/test-support/postgres-cluster.js';

const cluster = setUpPostgresCluster();

describe.skipIf(cluster.skip)('/mcp on the PostgreSQL server (two nodes, one database)', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function startNode({ schema, dataDir }: { schema: string; dataDir: string }) {
    const running = await startPostgresTestNode({ connectionString: cluster.connectionString, schema, dataDir });
    cleanups.push(() => running.close());
    return running;
  }

  async function connect(node: RunningServer<AssembledServer>, token: string): Promise<Client> {
    const client = new Client({ name: 'arbiter-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${node.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    cleanups.push(() => client.close());
    return client;
  }

  it('holds a refund asked on one node, takes the approval on the other, and runs the repeat once on either', async () => {
    const schema = cluster.freshSchema();
    const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-pg-mcp-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const a = await startNode({ schema, dataDir });
    const b = await startNode({ schema, dataDir });
    const onA = await connect(a, testTokens.alice);
    const onB = await connect(b, testTokens.alice);
    const refund = {
      name: 'apply_refund',
      arguments: { order_id: 'SO20260902', amount_cents: 6000, reason_category: 'damaged', reason: 'Chipped.' },
    };
    const held = await onA.callTool(refund);
    const { status, approvalId } = held.structuredContent as { status: string; approvalId: string };
    expect(status).toBe('awaiting_approval');

    // Another tenant's approver does not find it; the shop's approver decides it on the other node.
    const decide = (token: string) =>
      fetch(`${b.url}/v1/approvals/${approvalId}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ decision: 'approve' }),
      });
    expect((await decide(testTokens.mallory)).status).toBe(404);
    const decided = await decide(testTokens.staff);
    expect(decided.status).toBe(202);
    expect(await decided.json()).toMatchObject({ decision: 'approved', resumed: false });

    const [first, second] = await Promise.all([onB.callTool(refund), onA.callTool(refund)]);
    // One runs; the other finds the approval used and its idempotency key answers: the first's refund replayed
    // once that one has finished, or a refusal (outcome unknown) while it still runs. Never a second refund.
    const refunds = [first, second]
      .map((result) => (result.structuredContent as { refund_no?: string } | undefined)?.refund_no)
      .filter((refundNo) => refundNo !== undefined);
    expect(refunds.length).toBeGreaterThanOrEqual(1);
    expect(new Set(refunds).size).toBe(1);
    const ran = [first, second].find((result) => (result.structuredContent as { refund_no?: string }).refund_no);
    expect(ran?.structuredContent).toMatchObject({ order_id: 'SO20260902', amount_cents: 6000 });
  });
});
