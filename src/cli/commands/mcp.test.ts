import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mcpCommand, mcpToolsCommand } from './mcp.js';

const filesystemBin = resolve('node_modules/.bin/mcp-server-filesystem');
const fixtureServer = resolve('test/fixtures/mcp/fixture-server.mjs');
const hostileServer = resolve('test/fixtures/mcp/hostile-server.mjs');
const directory = mkdtempSync(join(tmpdir(), 'arbiter-mcp-cli-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('arbiter mcp tools', () => {
  it('lists a stdio server’s tools with tier and why, tokens per turn and lint warnings', async () => {
    const result = await mcpToolsCommand({ args: ['--name', 'files', '--', filesystemBin, directory] });
    expect(result.exitCode).toBe(1);
    // The reference server is built on SDK 1.x, which offers no 2026-07-28.
    expect(result.stdout[0]).toBe('MCP server "files" speaks protocol revision 2025-11-25');
    expect(result.stdout).toContainEqual(
      expect.stringMatching(/^files_read_text_file {2}read \(readOnlyHint\) {2}\d+ tokens per turn$/),
    );
    expect(result.stdout).toContainEqual(
      expect.stringMatching(
        /^files_write_file {2}irreversible \(neither readOnlyHint nor destructiveHint: false\) {2}\d+ tokens per turn$/,
      ),
    );
    expect(result.stdout).toContainEqual(
      expect.stringMatching(/^files_create_directory {2}reversible \(destructiveHint: false\)/),
    );
    expect(result.stdout).toContain(
      '  warning: parameter "path" has no description: say what it is and, for a format, give an example',
    );
    expect(result.stdout.at(-1)).toMatch(/^total: \d+ tokens per turn for 1\d tools$/);
    // The server writes every schema as draft-07: said once, not under each of its tools.
    const schemaNotes = result.stdout.filter((line) => line.includes('"$schema"'));
    expect(schemaNotes).toEqual([
      expect.stringMatching(
        /^note \(all 1\d tools\): inputSchema's "\$schema" \(.*draft-07.*\) dropped; read as JSON Schema 2020-12$/,
      ),
    ]);
    expect(result.stdout[1]).toBe(schemaNotes[0]);
    // Exit 1 says why, on one line.
    expect(result.stderr).toEqual([
      expect.stringMatching(/^exit 1: 1\d of 1\d tools have lint warnings \(\d+ in all, listed above\)$/),
    ]);
  });

  it('names the tools it refuses, and says so in the exit code and as JSON', async () => {
    {
      // A stdio server gets a minimal environment (the SDK's default), so the variable goes on its command line.
      const result = await mcpToolsCommand({
        args: ['--json', '--name', 'fx', '--', 'env', 'FIXTURE_HOSTILE=1', process.execPath, fixtureServer],
      });
      expect(result.exitCode).toBe(1);
      const report = JSON.parse(result.stdout[0] ?? '') as {
        protocolVersion: string;
        refused: string[];
        tools: { name: string }[];
      };
      expect(report.protocolVersion).toBe('2025-11-25');
      expect(report.refused).toHaveLength(3);
      expect(report.refused[0]).toMatch(/^MCP server "fx", tool "lookahead_code", field "properties\.code\.pattern": /);
      expect(report.tools.map((tool) => tool.name)).toContain('fx_whoami');
    }
  });

  it('names a hostile server’s 700-level-deep tool as refused, with no stack, and lists the others', async () => {
    const result = await mcpToolsCommand({ args: ['--name', 'evil', '--', process.execPath, hostileServer, 'deep'] });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('refused: MCP server "evil", tool "deep_schema": nests more than 64 levels deep');
    expect(result.stdout).toContainEqual(expect.stringMatching(/^evil_evil_pay {2}irreversible/));
  });

  it('exits 2 with one line naming a server whose tool listing fails', async () => {
    const result = await mcpToolsCommand({ args: ['--name', 'evil', '--', process.execPath, hostileServer, 'fail'] });
    expect(result).toEqual({
      exitCode: 2,
      stdout: [],
      stderr: [expect.stringMatching(/^MCP server "evil" could not list its tools: [^\n]*$/)],
    });
  });

  it('exits 2 with one line when the server cannot be started', async () => {
    const result = await mcpToolsCommand({ args: ['--', join(directory, 'no-such-server')] });
    expect(result).toEqual({
      exitCode: 2,
      stdout: [],
      stderr: [expect.stringMatching(/^MCP server "mcp" could not be reached: spawn .*no-such-server ENOENT$/)],
    });
  });

  it('refuses a call without a server, or with both kinds', async () => {
    await expect(mcpToolsCommand({ args: [] })).rejects.toThrow('needs either -- COMMAND [ARGS…] or --url URL');
    await expect(mcpToolsCommand({ args: ['--url', 'http://127.0.0.1:1/mcp', '--', 'x'] })).rejects.toThrow(
      'needs either',
    );
    await expect(mcpToolsCommand({ args: ['--header', 'nocolon', '--url', 'http://127.0.0.1:1/mcp'] })).rejects.toThrow(
      '--header must be "Name: value"',
    );
  });

  it('dispatches subcommands and says when serve is not in this build', async () => {
    expect((await mcpCommand({ args: ['bogus'] })).stderr[0]).toBe('arbiter: unknown mcp subcommand "bogus"');
    expect((await mcpCommand({ args: ['toString'] })).exitCode).toBe(2);
  });
});
