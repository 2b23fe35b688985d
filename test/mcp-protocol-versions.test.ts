import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Client,
  type ClientOptions,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../src/mcp/client/mcp-server-config.js';
import { McpServerMount } from '../src/mcp/client/mcp-server-mount.js';
import { startTestServer, type TestServer, testTokens } from '../src/server/test-support/test-server.js';

/**
 * Which protocol revision is agreed when arbiter's MCP server (`arbiter mcp
 * serve` over stdio, `/mcp` on `arbiter serve` over Streamable HTTP) meets
 * the official SDK client configured for each revision, and when arbiter's
 * own MCP client mounts it.
 */
const cli = 'dist/src/cli/main.js';
let dataDir: string;
let server: TestServer;

beforeAll(async () => {
  if (!existsSync(cli)) throw new Error('run `npm run build` first: this test starts dist/');
  dataDir = mkdtempSync(join(tmpdir(), 'arbiter-mcp-versions-'));
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** `arbiter mcp serve` for shop customer C1001, as an MCP client starts it. */
const mcpServeArgs = () => [cli, 'mcp', 'serve', '--tenant', 'shop', '--user', 'C1001', '--data-dir', dataDir];
const transports: Record<string, () => Transport> = {
  stdio: () =>
    new StdioClientTransport({
      command: process.execPath,
      args: mcpServeArgs(),
      env: { PATH: process.env['PATH'] ?? '' },
      stderr: 'ignore',
    }),
  'Streamable HTTP': () =>
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${testTokens.alice}` } },
    }),
};

/** SDK clients as configured for each revision, and the revision each must end up speaking. */
const clients: readonly { label: string; options: ClientOptions; expected: string }[] = [
  { label: 'the default client (2025-11-25 initialize)', options: {}, expected: '2025-11-25' },
  {
    label: 'a client that asks for 2025-11-25 only',
    options: { supportedProtocolVersions: ['2025-11-25'] },
    expected: '2025-11-25',
  },
  {
    label: 'a client that offers 2026-07-28 and falls back (auto)',
    options: { versionNegotiation: { mode: 'auto' } },
    expected: '2026-07-28',
  },
  {
    label: 'a client pinned to 2026-07-28',
    options: { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    expected: '2026-07-28',
  },
  {
    label: 'an older client that asks for 2025-06-18',
    options: { supportedProtocolVersions: ['2025-06-18'] },
    expected: '2025-06-18',
  },
];

function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as { text?: string }[]).map((block) => block.text ?? '').join('\n');
}

for (const [transportName, transport] of Object.entries(transports)) {
  describe(`arbiter's MCP server over ${transportName}`, () => {
    for (const { label, options, expected } of clients) {
      it(`speaks ${expected} with ${label}: lists, validates and calls`, async () => {
        const client = new Client({ name: 'arbiter-test', version: '1.0.0' }, options);
        await client.connect(transport());
        try {
          expect(client.getNegotiatedProtocolVersion()).toBe(expected);
          const { tools } = await client.listTools();
          expect(tools.map((tool) => tool.name)).toContain('query_order');
          const valid = await client.callTool({ name: 'query_order', arguments: { order_id: 'SO20260901' } });
          expect(valid.isError).toBeFalsy();
          expect(valid.structuredContent).toMatchObject({ order_id: 'SO20260901' });
          const invalid = await client.callTool({ name: 'query_order', arguments: { order_id: 'order 2' } });
          expect(invalid.isError).toBe(true);
          expect(textOf(invalid)).toContain('`order_id`: expected a string matching ^SO\\d{8}$');
        } finally {
          await client.close();
        }
      });
    }
  });
}

describe("arbiter's MCP client against arbiter's MCP server", () => {
  const servers: Record<string, () => McpServerConfig> = {
    stdio: () => ({
      name: 'shop',
      command: process.execPath,
      args: mcpServeArgs(),
    }),
    'Streamable HTTP': () => ({ name: 'shop', url: `${server.url}/mcp`, bearer: testTokens.alice }),
  };
  for (const [transportName, config] of Object.entries(servers)) {
    it(`offers 2026-07-28 over ${transportName} and gets it`, async () => {
      const mount = await McpServerMount.open({ server: config() });
      try {
        expect(await mount.connection.protocolVersion()).toBe('2026-07-28');
        expect(mount.tools.map((tool) => tool.name)).toContain('shop_query_order');
        const result = await mount.connection.callTool(
          'query_order',
          { order_id: 'SO20260901' },
          { signal: new AbortController().signal, timeoutMs: 30_000, retryInFlight: true },
        );
        expect(result).toMatchObject({ structuredContent: { order_id: 'SO20260901' } });
      } finally {
        await mount.close();
      }
    });
  }
});
