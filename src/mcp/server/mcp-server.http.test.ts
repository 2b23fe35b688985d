import { request as httpRequest } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestServer,
  type TestServer,
  testMetricsToken,
  testTokens,
} from '../../server/test-support/test-server.js';
import { SqliteAuditLog } from '../../store/sqlite/sqlite-audit-log.js';
import { mcpRunId } from './mcp-run.js';

/**
 * The official SDK client (`@modelcontextprotocol/client`) against `/mcp`
 * of a real `arbiter serve` (startServer: the shop's tools, SQLite store,
 * bearer auth of `testAuth`) on a free port.
 */
let server: TestServer;
const clients: Client[] = [];

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await server?.stop();
});

async function connect(token: string | undefined, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'arbiter-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { ...headers, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

function textOf(result: { content?: unknown }): string {
  const content = (result.content ?? []) as { type: string; text?: string }[];
  return content.map((block) => block.text ?? '').join('\n');
}

function approvalIdOf(result: { structuredContent?: unknown }): string {
  const structured = result.structuredContent as { status?: string; approvalId?: string } | undefined;
  expect(structured?.status).toBe('awaiting_approval');
  return structured?.approvalId as string;
}

function auditOf(principal: { tenantId: string; userId: string }) {
  return new SqliteAuditLog({ database: server.server.store.database }).listAudit({
    runId: mcpRunId({ ...principal, roles: [] }),
  });
}

const alice = { tenantId: 'shop', userId: 'C1001' };
const mallory = { tenantId: 'other-shop', userId: 'C1001' };

describe('arbiter mcp over Streamable HTTP (/mcp on arbiter serve)', () => {
  it('lists the tools with annotations from their tier, bound parameters left out', async () => {
    const client = await connect(testTokens.alice);
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(Object.keys(byName).sort()).toEqual([
      'add_order_note',
      'apply_refund',
      'query_order',
      'query_refund',
      'track_shipment',
    ]);
    expect(byName['query_order']?.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    expect(byName['add_order_note']?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName['apply_refund']?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    const refundParameters = Object.keys(byName['apply_refund']?.inputSchema.properties ?? {});
    expect(refundParameters).toEqual(['order_id', 'amount_cents', 'reason_category', 'reason']);
  });

  it('answers a valid call with the tool data for the token’s principal, audited under its run', async () => {
    const client = await connect(testTokens.alice);
    const result = await client.callTool({ name: 'query_order', arguments: { order_id: 'SO20260901' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ order_id: 'SO20260901', status: 'shipped' });
    expect(JSON.parse(textOf(result))).toMatchObject({ order_id: 'SO20260901' });
    const audited = auditOf(alice).filter((entry) => entry.tool === 'query_order');
    expect(audited.at(-1)).toMatchObject({ tenantId: 'shop', userId: 'C1001', decision: 'allowed', outcome: 'ok' });
  });

  it('answers an invalid call with isError and the whole field-level message, and runs nothing', async () => {
    const client = await connect(testTokens.alice);
    const before = auditOf(alice).length;
    const result = await client.callTool({
      name: 'apply_refund',
      arguments: { order_id: 'order 2', amount_cents: '60', reason_category: 'bored' },
    });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toContain('order_id');
    expect(text).toContain('amount_cents');
    expect(text).toContain('reason_category');
    expect(text).toContain('reason');
    expect(text).toMatchInlineSnapshot(`
      "The call to apply_refund was not run: 4 problems with its arguments. Fix all of them and call apply_refund again.
      - \`order_id\`: expected a string matching ^SO\\d{8}$ (Order number, "SO" + 8 digits, e.g. SO20260901). Valid example: "SO20260901". You sent the string "order 2".
      - \`amount_cents\`: expected an integer >= 1 and <= 10000000 (Integer cents (fen): 45.50 yuan is 4550. At most the order's refundable_cents). Valid example: 4550. You sent the string "60".
      - \`reason_category\`: expected one of the allowed values (Kind of problem). Allowed values: "damaged", "wrong_item", "missing_item", "not_received", "not_as_described", "changed_mind", "other". You sent the string "bored".
      - \`reason\`: this required field is missing. Expected a non-empty string of at most 500 characters (The customer's reason, one sentence). Valid example: "The mug arrived with a chipped handle.". You sent nothing."
    `);
    const error = (result.structuredContent as { error: { code: string; issues: { path: string }[] } }).error;
    expect(error.code).toBe('invalid_arguments');
    expect(error.issues.length).toBeGreaterThanOrEqual(4);
    expect(auditOf(alice).length).toBe(before);
  });

  it('answers arguments nested 5,000 levels deep with the ordinary validation message, not a stack overflow', async () => {
    // Written as text: the SDK client itself cannot serialise such a value.
    const client = await connect(testTokens.alice);
    const transport = client.transport as StreamableHTTPClientTransport;
    // Arrays, so 5,000 levels stay under the endpoint's 32 KB body cap.
    const nested = `${'['.repeat(5000)}"SO20260901"${']'.repeat(5000)}`;
    const response = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${testTokens.alice}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(transport.sessionId === undefined ? {} : { 'mcp-session-id': transport.sessionId }),
        ...(transport.protocolVersion === undefined ? {} : { 'mcp-protocol-version': transport.protocolVersion }),
      },
      body: `{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"query_order","arguments":{"order_id":${nested}}}}`,
    });
    const text = await response.text();
    expect(text).toContain('nested more than 64 levels deep');
    expect(text).toContain('"isError":true');
    expect(text).not.toContain('call stack');
  });

  it('counts MCP calls in /metrics like every other tool call, under the caller’s tenant', async () => {
    const client = await connect(testTokens.alice);
    const scrape = async () =>
      (
        await (
          await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${testMetricsToken}` } })
        ).text()
      )
        .split('\n')
        .find(
          (line) =>
            line.startsWith('arbiter_tool_calls_total{') &&
            line.includes('tool="query_order"') &&
            line.includes('outcome="ok"'),
        );
    const count = (line: string | undefined) => Number(line?.split(' ').at(-1) ?? 0);
    const before = count(await scrape());
    await client.callTool({ name: 'query_order', arguments: { order_id: 'SO20260901' } });
    const after = await scrape();
    expect(count(after)).toBe(before + 1);
    expect(after).toContain(`tenant="${alice.tenantId}"`);
  });

  it('answers an unknown tool with the tools there are', async () => {
    const client = await connect(testTokens.alice);
    const result = await client.callTool({ name: 'drop_database', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('query_order');
  });

  it('holds a refund for a person, then runs the identical call once after approval, never twice', async () => {
    const client = await connect(testTokens.alice);
    const refund = {
      name: 'apply_refund',
      arguments: {
        order_id: 'SO20260902',
        amount_cents: 6000,
        reason_category: 'damaged',
        reason: 'The mug arrived with a chipped handle.',
      },
    };
    const held = await client.callTool(refund);
    expect(held.isError).toBeFalsy();
    const approvalId = approvalIdOf(held);
    expect(textOf(held)).toContain('NOT executed');
    expect(textOf(held)).toContain(`POST /v1/approvals/${approvalId}`);
    expect(textOf(held)).toContain(`arbiter approve ${approvalId}`);

    // Asked again before anyone decided: the same approval, still nothing run.
    const again = await client.callTool(refund);
    expect(approvalIdOf(again)).toBe(approvalId);
    expect(auditOf(alice).filter((entry) => entry.tool === 'apply_refund' && entry.outcome === 'ok')).toEqual([]);

    // Alice cannot approve her own refund (customer role), and the call with other arguments is not covered.
    expect(
      (
        await server.request(`/v1/approvals/${approvalId}`, {
          token: testTokens.alice,
          method: 'POST',
          body: { decision: 'approve' },
        })
      ).status,
    ).toBe(403);
    const decided = await server.request(`/v1/approvals/${approvalId}`, {
      token: testTokens.staff,
      method: 'POST',
      body: { decision: 'approve' },
    });
    expect(decided.status).toBe(202);
    expect(decided.body).toMatchObject({ decision: 'approved', resumed: false });

    const changed = await client.callTool({ ...refund, arguments: { ...refund.arguments, amount_cents: 7000 } });
    expect(approvalIdOf(changed)).not.toBe(approvalId);

    const [first, second] = await Promise.all([client.callTool(refund), client.callTool(refund)]);
    const results = [first, second];
    const ran = results.filter(
      (result) => !result.isError && (result.structuredContent as { refund_no?: string }).refund_no,
    );
    expect(ran).toHaveLength(1);
    const executed = auditOf(alice).filter((entry) => entry.tool === 'apply_refund' && entry.outcome === 'ok');
    expect(executed).toHaveLength(1);
    expect(executed[0]).toMatchObject({ decision: 'approved', approver: 'S9001', tenantId: 'shop', userId: 'C1001' });

    // A later identical call needs a new approval; once approved, the idempotency key answers with the first refund.
    const later = await client.callTool(refund);
    const secondApproval = approvalIdOf(later);
    expect(secondApproval).not.toBe(approvalId);
    await server.request(`/v1/approvals/${secondApproval}`, {
      token: testTokens.staff,
      method: 'POST',
      body: { decision: 'approve' },
    });
    const replayed = await client.callTool(refund);
    expect(replayed.structuredContent).toEqual(ran[0]?.structuredContent);
    expect(auditOf(alice).filter((entry) => entry.tool === 'apply_refund' && entry.outcome === 'ok')).toHaveLength(1);
  });

  it('refuses a request without a valid bearer token with 401, before any MCP is read', async () => {
    await expect(connect(undefined)).rejects.toThrow();
    await expect(connect('not-a-token-of-this-server-0123456789')).rejects.toThrow();
    const response = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('keeps tenants apart: another tenant neither sees, rides on nor decides tenant A’s call and approval', async () => {
    const aliceClient = await connect(testTokens.alice);
    const malloryClient = await connect(testTokens.mallory);
    const refund = {
      name: 'apply_refund',
      arguments: { order_id: 'SO20260901', amount_cents: 9000, reason_category: 'damaged', reason: 'Cracked.' },
    };
    const approvalId = approvalIdOf(await aliceClient.callTool(refund));

    // Same user id, other tenant: A's order does not exist for B.
    const seen = await malloryClient.callTool({ name: 'query_order', arguments: { order_id: 'SO20260901' } });
    expect(seen.isError).toBe(true);
    expect(textOf(seen)).not.toContain('129');

    // B (an approver of its own tenant) cannot decide A's approval: it does not exist for B.
    const decided = await server.request(`/v1/approvals/${approvalId}`, {
      token: testTokens.mallory,
      method: 'POST',
      body: { decision: 'approve' },
    });
    expect(decided.status).toBe(404);
    // Nor read A's MCP run.
    expect(
      (await server.request(`/v1/runs/${mcpRunId({ ...alice, roles: [] })}`, { token: testTokens.mallory })).status,
    ).toBe(404);

    // B's identical call is B's own request, under B's own run: A's approval does not cover it.
    const malloryHeld = await malloryClient.callTool(refund);
    expect(approvalIdOf(malloryHeld)).not.toBe(approvalId);
    const auditB = auditOf(mallory);
    expect(auditB.every((entry) => entry.tenantId === 'other-shop')).toBe(true);
    expect(
      auditB.some((entry) => entry.toolCallId.length > 0 && entry.runId === mcpRunId({ ...alice, roles: [] })),
    ).toBe(false);
    expect(auditOf(alice).every((entry) => entry.tenantId === 'shop')).toBe(true);

    // A's approval is still pending, for A's tenant to decide.
    expect(
      (
        await server.request(`/v1/approvals/${approvalId}`, {
          token: testTokens.staff,
          method: 'POST',
          body: { decision: 'reject', reason: 'Ask for a photo' },
        })
      ).status,
    ).toBe(202);
    const rejected = await aliceClient.callTool(refund);
    expect(rejected.isError).toBe(true);
    expect(textOf(rejected)).toContain('Ask for a photo');
  });

  it('words arbiter’s sentences in Chinese for Accept-Language: zh-CN', async () => {
    const client = await connect(testTokens.bob, { 'accept-language': 'zh-CN' });
    const held = await client.callTool({
      name: 'apply_refund',
      arguments: { order_id: 'SO20260906', amount_cents: 8000, reason_category: 'damaged', reason: '包装破损' },
    });
    expect(textOf(held)).toContain('尚未执行');
  });

  it('counts each call against the principal’s messages per minute: beyond, nothing runs and the caller is told when to retry', async () => {
    const limited = await startTestServer({ principalLimits: { messagesPerMinute: 2 } });
    try {
      const client = new Client({ name: 'arbiter-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${limited.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${testTokens.bob}` } },
        }),
      );
      const call = () => client.callTool({ name: 'query_order', arguments: { order_id: 'SO20260906' } });
      expect((await call()).isError).toBeFalsy();
      expect((await call()).isError).toBeFalsy();
      const refused = await call();
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(
        /^Too many tool calls for this user right now; nothing was run\. Try again in \d+ seconds\.$/,
      );
      const audit = new SqliteAuditLog({ database: limited.server.store.database }).listAudit({
        runId: mcpRunId({ tenantId: 'shop', userId: 'C1002', roles: [] }),
      });
      expect(audit).toHaveLength(2);
      await client.close();
    } finally {
      await limited.stop();
    }
  });

  it('never lets a caller choose whom a call acts for: bound parameters sent in the arguments are overwritten', async () => {
    const client = await connect(testTokens.alice);
    // Bob's order, asked for by Alice posing as Bob through the parameters the server binds.
    const posing = await client.callTool({
      name: 'query_order',
      arguments: { order_id: 'SO20260906', user_id: 'C1002', tenant_id: 'shop' },
    });
    expect(posing.isError).toBe(true);
    expect(textOf(posing)).not.toContain('YTO');
    const audited = auditOf(alice).at(-1);
    expect(audited).toMatchObject({ tool: 'query_order', userId: 'C1001' });
    expect(audited?.arguments).toMatchObject({ user_id: 'C1001', order_id: 'SO20260906' });
  });

  it('answers /mcp of the demo server only for a loopback Host, as the rest of it (no DNS rebinding)', async () => {
    const demo = await startTestServer({ demoAuth: true });
    try {
      // fetch sends the real Host; node:http sends the one a rebinding page's browser would.
      const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
        const request = httpRequest(
          {
            host: '127.0.0.1',
            port: demo.port,
            path: '/mcp',
            method: 'POST',
            headers: {
              host: 'attacker.example',
              authorization: 'Bearer demo-customer-token-this-machine-only',
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'content-length': Buffer.byteLength(body),
            },
          },
          (response) => {
            let text = '';
            response.on('data', (chunk: Buffer) => {
              text += chunk.toString();
            });
            response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
          },
        );
        request.on('error', reject);
        request.end(body);
      });
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'host_not_allowed' } });
      expect(answer.text).not.toContain('apply_refund');
    } finally {
      await demo.stop();
    }
  });
});
