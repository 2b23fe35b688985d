import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const directory = mkdtempSync(join(tmpdir(), 'arbiter-mcp-demo-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('arbiter demo --mcp', () => {
  it('mounts the servers next to the shop, says so, runs the demo and exits (the servers closed)', async () => {
    const config = join(directory, 'mcp.json');
    writeFileSync(
      config,
      JSON.stringify([
        { name: 'files', command: resolve('node_modules/.bin/mcp-server-filesystem'), args: [directory] },
      ]),
    );
    const { stdout, stderr } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'demo',
        '--mcp',
        config,
        '--data-dir',
        join(directory, 'data'),
        '--events',
        'none',
      ],
      { cwd: process.cwd(), timeout: 60_000 },
    );
    expect(stderr).toContain('arbiter demo: MCP server "files": 14 tools mounted');
    expect(stdout).toContain('awaiting approval');
  }, 90_000);

  it('exits 2 naming the file when the config is malformed', async () => {
    const config = join(directory, 'bad.json');
    writeFileSync(config, JSON.stringify([{ name: 'files' }]));
    const failed = run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'demo', '--mcp', config], {
      cwd: process.cwd(),
    });
    await expect(failed).rejects.toMatchObject({
      code: 2,
      stderr: `arbiter: ${config}: server "files" needs either "command" (stdio) or "url"\n`,
    });
  }, 60_000);
});
