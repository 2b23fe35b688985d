import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpRunId } from '../src/mcp/server/mcp-run.js';
import { SqliteAuditLog } from '../src/store/sqlite/sqlite-audit-log.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';

/**
 * The official SDK client (`@modelcontextprotocol/client`) starting the
 * built CLI, `node dist/src/cli/main.js mcp serve …`, as an MCP client such
 * as Claude Desktop does, over stdio; approvals decided with the built
 * `arbiter approve` on the same data directory.
 */
const cli = 'dist/src/cli/main.js';
let dataDir: string;
const clients: Client[] = [];

beforeAll(() => {
  if (!existsSync(cli)) throw new Error('run `npm run build` first: this test starts dist/');
  dataDir = mkdtempSync(join(tmpdir(), 'arbiter-mcp-stdio-'));
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  rmSync(dataDir, { recursive: true, force: true });
});

async function connect(principal: string[], environment: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'arbiter-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'mcp', 'serve', ...principal, '--data-dir', dataDir],
    env: { PATH: process.env['PATH'] ?? '', ...environment },
    stderr: 'ignore',
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

function arbiter(...args: string[]) {
  const result = spawnSync(process.execPath, [cli, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as { text?: string }[]).map((block) => block.text ?? '').join('\n');
}

function approvalIdOf(result: { structuredContent?: unknown }): string {
  const structured = result.structuredContent as { status?: string; approvalId?: string } | undefined;
  expect(structured?.status).toBe('awaiting_approval');
  return structured?.approvalId as string;
}

function executedRefunds(principal: { tenantId: string; userId: string }) {
  const store = openSqliteStore({ path: join(dataDir, 'arbiter.db') });
  try {
    return new SqliteAuditLog({ database: store.database })
      .listAudit({ runId: mcpRunId({ ...principal, roles: [] }) })
      .filter((entry) => entry.tool === 'apply_refund' && entry.outcome === 'ok');
  } finally {
    store.close();
  }
}

const refund = {
  name: 'apply_refund',
  arguments: {
    order_id: 'SO20260904',
    amount_cents: 4550,
    reason_category: 'changed_mind',
    reason: 'No longer needed.',
  },
};

describe('arbiter mcp serve over stdio (the built CLI)', () => {
  it('refuses to start without a principal, naming the flags and variables', () => {
    const { code, stderr } = arbiter('mcp', 'serve', '--data-dir', dataDir);
    expect(code).toBe(2);
    expect(stderr).toContain('--tenant ID and --user ID (or ARBITER_MCP_TENANT and ARBITER_MCP_USER)');
  });

  it('lists the tools with annotations, answers valid and invalid calls, holds one for a person, runs it once after approval', async () => {
    const client = await connect(['--tenant', 'shop', '--user', 'C1001']);
    const { tools } = await client.listTools();
    const annotations = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]));
    expect(annotations['query_order']).toMatchObject({ readOnlyHint: true });
    expect(annotations['add_order_note']).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(annotations['apply_refund']).toMatchObject({ destructiveHint: true, idempotentHint: true });

    const valid = await client.callTool({ name: 'track_shipment', arguments: { order_id: 'SO20260901' } });
    expect(valid.isError).toBeFalsy();
    expect(textOf(valid)).toContain('SO20260901');

    const invalid = await client.callTool({ name: 'query_order', arguments: { order_id: 'SO123' } });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toContain('`order_id`: expected a string matching ^SO\\d{8}$');
    expect(textOf(invalid)).toContain('You sent the string "SO123"');

    // 45.50 yuan is under the automatic limit, but this customer's second refund of the day adds up: first one free.
    const small = await client.callTool({
      name: 'apply_refund',
      arguments: { order_id: 'SO20260901', amount_cents: 1000, reason_category: 'damaged', reason: 'Scratched box.' },
    });
    expect(small.isError).toBeFalsy();
    const held = await client.callTool(refund);
    const approvalId = approvalIdOf(held);
    expect(textOf(held)).toContain(`arbiter approve ${approvalId}`);
    expect(executedRefunds({ tenantId: 'shop', userId: 'C1001' })).toHaveLength(1);

    // Four eyes, on the principal the MCP run was recorded under: the client's own user may not decide it.
    const own = arbiter('approve', approvalId, '--by', 'C1001', '--data-dir', dataDir);
    expect(own.code).toBe(1);
    expect(own.stderr).toContain('under the four-eyes rule another approver of the tenant must decide it');
    const approved = arbiter('approve', approvalId, '--by', 'S9001', '--data-dir', dataDir);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain('when it repeats exactly the same apply_refund call, it runs once');

    const ran = await client.callTool(refund);
    expect(ran.isError).toBeFalsy();
    expect(ran.structuredContent).toMatchObject({ order_id: 'SO20260904', amount_cents: 4550 });
    const executed = executedRefunds({ tenantId: 'shop', userId: 'C1001' });
    expect(executed).toHaveLength(2);
    // The name --by gave, and where it was given: the command line's OS user and host.
    expect(executed.at(-1)).toMatchObject({
      decision: 'approved',
      approver: expect.stringMatching(/^S9001 \(command line: OS user .+, host .+\)$/),
      tenantId: 'shop',
    });

    // Repeated after it ran: a new approval is asked for, nothing runs again.
    expect(approvalIdOf(await client.callTool(refund))).not.toBe(approvalId);
    expect(executedRefunds({ tenantId: 'shop', userId: 'C1001' })).toHaveLength(2);
  });

  it('acts for the principal of ARBITER_MCP_* only: another tenant sees none of tenant A’s orders or approvals', async () => {
    const other = await connect([], { ARBITER_MCP_TENANT: 'other-shop', ARBITER_MCP_USER: 'C1001' });
    const seen = await other.callTool({ name: 'query_order', arguments: { order_id: 'SO20260904' } });
    expect(seen.isError).toBe(true);
    const held = await other.callTool(refund);
    expect(held.isError).toBe(true);
    expect(textOf(held)).not.toContain('45.50');
    expect(executedRefunds({ tenantId: 'other-shop', userId: 'C1001' })).toEqual([]);
  });

  it('serves a tools module of one’s own (--tools), and completes and audits a call still running when the client closes stdin', async () => {
    const moduleDir = mkdtempSync(join(tmpdir(), 'arbiter-mcp-module-'));
    const modulePath = join(moduleDir, 'slow-tools.mjs');
    writeFileSync(
      modulePath,
      `export const tools = [{
        name: 'echo_slowly',
        description: 'Echoes a word after a pause. Use it to test; not for anything else (there is no sibling tool).',
        parameters: { type: 'object', properties: { word: { type: 'string', description: 'The word', minLength: 1 } },
          required: ['word'], additionalProperties: false },
        sideEffect: 'read',
        execute: async ({ word }) => { await new Promise((resolve) => setTimeout(resolve, 300)); return { echoed: word }; },
      }];\n`,
    );
    const child = spawn(
      process.execPath,
      [cli, 'mcp', 'serve', '--tenant', 't1', '--user', 'u1', '--tools', modulePath, '--data-dir', dataDir],
      {
        stdio: ['pipe', 'pipe', 'ignore'],
      },
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const exited = once(child, 'exit');
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'sh', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo_slowly', arguments: { word: 'hello' } },
    });
    child.stdin.end();
    const [code] = await exited;
    expect(code).toBe(0);
    // Closing stdin is the client's shutdown (the stdio transport): the answer may not be written any more, but
    // the call that was running completes and is audited before the store closes, rather than being cut off.
    expect(stdout).toContain('"serverInfo":{"name":"arbiter"');
    const store = openSqliteStore({ path: join(dataDir, 'arbiter.db') });
    try {
      const audited = new SqliteAuditLog({ database: store.database }).listAudit({
        runId: mcpRunId({ tenantId: 't1', userId: 'u1', roles: [] }),
      });
      expect(audited.map((entry) => [entry.tool, entry.outcome])).toEqual([['echo_slowly', 'ok']]);
    } finally {
      store.close();
      rmSync(moduleDir, { recursive: true, force: true });
    }
  });
});
