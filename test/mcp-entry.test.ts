import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * `@arbiter-runtime/core/mcp` as plain ESM imports it: a separate Node
 * process in the checkout, where the package's own name resolves through
 * its `exports` map to the built `dist/` (Node's self-reference), mounting
 * the reference server-everything over stdio with what the entry gives.
 * The packed-package test (test/package/consumer.test.ts) checks the same
 * entry installed from a tarball.
 */
const packageName = (JSON.parse(readFileSync('package.json', 'utf8')) as { name: string }).name;
const everythingBin = resolve('node_modules/.bin/mcp-server-everything');

beforeAll(() => {
  if (!existsSync('dist/src/mcp.js')) throw new Error('run `npm run build` first: this test imports dist/');
});

function runModule(source: string): unknown {
  const output = execFileSync(process.execPath, ['--input-type=module', '--eval', source], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(output.trim().split('\n').at(-1) ?? '');
}

describe(`${packageName}/mcp`, () => {
  it('mounts an MCP server through the built entry and reports the protocol revision agreed', () => {
    const report = runModule(`
      import { ToolRegistry } from '${packageName}';
      import { McpServerMount, createArbiterMcpServer, createMcpHttpRoute, mountMcpServers } from '${packageName}/mcp';
      const mount = await McpServerMount.open({ server: { name: 'everything', command: ${JSON.stringify(everythingBin)} } });
      const registry = new ToolRegistry();
      mount.attach(registry);
      const protocolVersion = await mount.connection.protocolVersion();
      await mount.close();
      console.log(JSON.stringify({
        protocolVersion,
        echo: registry.get('everything_echo')?.definition.sideEffect,
        serving: [typeof createArbiterMcpServer, typeof createMcpHttpRoute, typeof mountMcpServers],
      }));
    `);
    expect(report).toEqual({
      protocolVersion: '2025-11-25',
      echo: 'read',
      serving: ['function', 'function', 'function'],
    });
  });

  it('keeps the internals out of the entry', () => {
    const report = runModule(`
      const entry = await import('${packageName}/mcp');
      console.log(JSON.stringify(['mcpToolResult', 'runMcpServe', 'McpServerTexts'].filter((name) => name in entry)));
    `);
    expect(report).toEqual([]);
  });
});
