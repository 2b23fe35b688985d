import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteAuditLog } from '../../store/sqlite/sqlite-audit-log.js';
import { startTestServer, type TestServer, testTokens } from '../../server/test-support/test-server.js';
import { mcpRunId } from './mcp-run.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

async function connect(token: string | undefined): Promise<Client> {
  const client = new Client({ name: 'arbiter-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

function textOf(result: { content?: unknown }): string {
  const content = (result.content ?? []) as { type: string; text?: string }[];
  return content.map((block) => block.text ?? '').join('\n');
}

describe('arbiter mcp over Streamable HTTP (/mcp on arbiter serve)', () => {
  it('lists the tools with annotations from their tier, bound parameters left out', async () => {
    const client = await connect(testTokens.alice);
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName['query_order']?.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    expect(byName['add_order_note']?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName['apply_refund']?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(Object.keys(byName['apply_refund']?.inputSchema.properties ?? {})).not.toContain('user_id');
    expect(Object.keys(byName['apply_refund']?.inputSchema.properties ?? {})).not.toContain('tenant_id');
    await client.close();
  });
});
