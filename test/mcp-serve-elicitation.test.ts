import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpRunId } from '../src/mcp/server/mcp-run.js';
import { startTestServer, type TestServer } from '../src/server/test-support/test-server.js';
import { SqliteAuditLog } from '../src/store/sqlite/sqlite-audit-log.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';

/**
 * Held calls decided by the person at the MCP client through form
 * elicitation, with the official SDK client answering `elicitation/create`
 * in-process: on a 2025-11-25 connection (a server→client request) and on a
 * 2026-07-28 one (an `input_required` result the client fulfils and retries).
 */
const cli = 'dist/src/cli/main.js';
const eras = { '2025-11-25': 'legacy', '2026-07-28': { pin: '2026-07-28' } } as const;
type Answer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string> };

function elicitingClient(era: keyof typeof eras, answer: () => Answer, asked: string[]): Client {
  const client = new Client(
    { name: 'arbiter-test', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: eras[era] } },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(String(request.params.message));
    return answer();
  });
  return client;
}

function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as { text?: string }[]).map((block) => block.text ?? '').join('\n');
}

const refund = (orderId: string, amount: number) => ({
  name: 'apply_refund',
  arguments: { order_id: orderId, amount_cents: amount, reason_category: 'damaged', reason: 'Broken on arrival.' },
});

function auditRows(dataDir: string, database?: import('better-sqlite3').Database) {
  const store = database === undefined ? openSqliteStore({ path: join(dataDir, 'arbiter.db') }) : undefined;
  try {
    return new SqliteAuditLog({ database: database ?? (store?.database as import('better-sqlite3').Database) })
      .listAudit({ runId: mcpRunId({ tenantId: 'shop', userId: 'C1001', roles: [] }) })
      .filter((entry) => entry.tool === 'apply_refund');
  } finally {
    store?.close();
  }
}

describe('arbiter mcp serve --approve-in-client over stdio', () => {
  let dataDir: string;
  beforeAll(() => {
    if (!existsSync(cli)) throw new Error('run `npm run build` first: this test starts dist/');
    dataDir = mkdtempSync(join(tmpdir(), 'arbiter-mcp-elicit-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  for (const [era, order] of [
    ['2025-11-25', 'SO20260901'],
    ['2026-07-28', 'SO20260902'],
  ] as const) {
    it(`asks the person at the client on ${era}: declined stays pending, approved runs once`, async () => {
      const asked: string[] = [];
      let answer: Answer = { action: 'decline' };
      const client = elicitingClient(era, () => answer, asked);
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [
            cli,
            'mcp',
            'serve',
            '--tenant',
            'shop',
            '--user',
            'C1001',
            '--approve-in-client',
            '--data-dir',
            dataDir,
          ],
          env: { PATH: process.env['PATH'] ?? '' },
          stderr: 'ignore',
        }),
      );
      try {
        const declined = await client.callTool(refund(order, 6000));
        expect(asked).toHaveLength(1);
        expect(asked[0]).toContain(`Approve apply_refund {"order_id":"${order}","amount_cents":6000`);
        expect(asked[0]).toContain('nothing runs unless you approve');
        expect(declined.structuredContent).toMatchObject({ status: 'awaiting_approval' });

        answer = { action: 'accept', content: { decision: 'approve' } };
        const ran = await client.callTool(refund(order, 6000));
        expect(ran.isError).toBeFalsy();
        expect(ran.structuredContent).toMatchObject({ order_id: order, amount_cents: 6000 });
        expect(asked).toHaveLength(2);
        const executed = auditRows(dataDir).filter(
          (entry) => entry.outcome === 'ok' && entry.arguments['order_id'] === order,
        );
        expect(executed).toHaveLength(1);
        expect(executed[0]).toMatchObject({ decision: 'approved', approver: 'C1001' });

        // An answer that is neither approve nor reject decides nothing.
        answer = { action: 'accept', content: { decision: 'yes please' } };
        const odd = await client.callTool(refund(order, 7000));
        expect(odd.structuredContent).toMatchObject({ status: 'awaiting_approval' });

        answer = { action: 'accept', content: { decision: 'reject', reason: 'Wrong amount' } };
        const rejected = await client.callTool(refund(order, 7000));
        expect(rejected.isError).toBe(true);
        expect(textOf(rejected)).toContain('Wrong amount');
        expect(
          auditRows(dataDir).filter((entry) => entry.outcome === 'ok' && entry.arguments['order_id'] === order),
        ).toHaveLength(1);
      } finally {
        await client.close();
      }
    });
  }

  it('does not ask without --approve-in-client: the call waits for an approver', async () => {
    const asked: string[] = [];
    const client = elicitingClient('2025-11-25', () => ({ action: 'accept', content: { decision: 'approve' } }), asked);
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [cli, 'mcp', 'serve', '--tenant', 'shop', '--user', 'C1001', '--data-dir', dataDir],
        env: { PATH: process.env['PATH'] ?? '' },
        stderr: 'ignore',
      }),
    );
    try {
      const held = await client.callTool(refund('SO20260904', 6000));
      expect(held.structuredContent).toMatchObject({ status: 'awaiting_approval' });
      expect(asked).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('/mcp on arbiter serve: deciding in the client is self-approval', () => {
  const selfApprover = 'self-approver-token-0005-0123456789abcdef';
  const customer = 'customer-token-0006-0123456789abcdef0123';
  const auth = {
    tokens: [
      { token: selfApprover, tenantId: 'shop', userId: 'C1001', roles: ['customer', 'approver'] },
      { token: customer, tenantId: 'shop', userId: 'C1002', roles: ['customer'] },
    ],
  };
  const servers: TestServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });

  async function connect(server: TestServer, token: string, asked: string[]): Promise<Client> {
    const client = elicitingClient('2026-07-28', () => ({ action: 'accept', content: { decision: 'approve' } }), asked);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  }

  it('asks an approver on a 2026-07-28 connection when the server allows self-approval, and runs once', async () => {
    const server = await startTestServer({ auth, allowSelfApproval: true });
    servers.push(server);
    const asked: string[] = [];
    const client = await connect(server, selfApprover, asked);
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'apply_refund')?.annotations).toMatchObject({ destructiveHint: true });
    const ran = await client.callTool(refund('SO20260902', 6000));
    expect(asked).toHaveLength(1);
    expect(ran.structuredContent).toMatchObject({ order_id: 'SO20260902', amount_cents: 6000 });
    const executed = auditRows('', server.server.store.database).filter((entry) => entry.outcome === 'ok');
    expect(executed).toHaveLength(1);
    expect(executed[0]).toMatchObject({ decision: 'approved', approver: 'C1001' });

    // A customer without the approver role is never asked, even here.
    const customerAsked: string[] = [];
    const other = await connect(server, customer, customerAsked);
    const held = await other.callTool(refund('SO20260906', 6000));
    expect(held.structuredContent).toMatchObject({ status: 'awaiting_approval' });
    expect(customerAsked).toEqual([]);
    await Promise.all([client.close(), other.close()]);
  });

  it('never asks under four eyes (the default): the call waits for another approver', async () => {
    const server = await startTestServer({ auth });
    servers.push(server);
    const asked: string[] = [];
    const client = await connect(server, selfApprover, asked);
    const held = await client.callTool(refund('SO20260902', 6000));
    expect(held.structuredContent).toMatchObject({ status: 'awaiting_approval' });
    expect(asked).toEqual([]);
    // Nor over HTTP: the requester deciding his own MCP call is refused and audited.
    const { approvalId } = held.structuredContent as { approvalId: string };
    const own = await server.request(`/v1/approvals/${approvalId}`, {
      token: selfApprover,
      method: 'POST',
      body: { decision: 'approve' },
    });
    expect(own.status).toBe(403);
    expect(own.body).toMatchObject({ error: { code: 'self_approval' } });
    expect(auditRows('', server.server.store.database).map((row) => row.outcome)).toEqual(['self_approval_refused']);
    await client.close();
  });
});
