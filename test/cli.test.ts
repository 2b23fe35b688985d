import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';

/** Runs the real `arbiter` entry point in a child process, as a user would. */
function arbiter(...args: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const shopTools = 'examples/shop/shop-tools.openai.json';

describe('arbiter command line', () => {
  it('runs the demo offline and the model recovers', () => {
    const { code, stdout } = arbiter('demo', '--data-dir', mkdtempSync(join(tmpdir(), 'arbiter-cli-')));
    expect(code).toBe(0);
    expect(stdout).toContain('rejected before execution');
    expect(stdout).toContain('calls query_order {"order_id":"SO20260901"}');
    expect(stdout).toMatch(/\[completed\]/);
  });

  it('runs the demo with vague errors and the run ends in a hand-off', () => {
    const { code, stdout } = arbiter(
      'demo',
      '--vague-errors',
      '--data-dir',
      mkdtempSync(join(tmpdir(), 'arbiter-cli-')),
    );
    expect(code).toBe(0);
    expect(stdout).toContain('Tool execution failed');
    expect(stdout).not.toContain('SO20260901"}');
    expect(stdout).toMatch(/\[tool_failures\]/);
  });

  it('exits 0, 1 and 2 from validate for valid, invalid and unreadable input', () => {
    expect(
      arbiter(
        'validate',
        '--tools',
        'test/fixtures/real-world-tools.json',
        '--calls',
        'test/fixtures/real-world-calls.jsonl',
      ).code,
    ).toBe(0);
    const invalid = arbiter('validate', '--tools', shopTools, '--calls', 'test/fixtures/shop-calls.jsonl');
    expect(invalid.code).toBe(1);
    expect(
      invalid.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).not.toHaveLength(0);
    const unreadable = arbiter(
      'validate',
      '--tools',
      'test/fixtures/no-such-file.json',
      '--calls',
      'test/fixtures/shop-calls.jsonl',
    );
    expect(unreadable.code).toBe(2);
    expect(unreadable.stderr).toContain('no-such-file.json');
  });

  it('exits 0, 1 and 2 from lint for clean, flawed and malformed tools', () => {
    expect(arbiter('lint', '--tools', shopTools).code).toBe(0);
    expect(arbiter('lint', '--tools', 'test/fixtures/missing-descriptions-tools.json').code).toBe(1);
    expect(arbiter('lint', '--tools', 'test/fixtures/malformed-tools.txt').code).toBe(2);
  });

  it('refuses an unknown command or flag with exit 2 and the usage', () => {
    const unknown = arbiter('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    expect(arbiter('demo', '--lang', 'fr').code).toBe(2);
  });
});

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Whether the port can be listened on again: no process holds it. */
async function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The processes of a process group, as `ps` lists them (empty once every one has exited). */
function processGroup(groupId: number): string[] {
  const listing = spawnSync('ps', ['-o', 'pid=,pgid=,args=', '-e'], { encoding: 'utf8' }).stdout;
  return listing
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.split(/\s+/)[1] === String(groupId));
}

const started: ChildProcess[] = [];
afterEach(() => {
  // Whatever a failed test left behind: its whole process group.
  for (const child of started.splice(0)) {
    if (child.pid === undefined) continue;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

describe('arbiter serve started in the background, as the README shows', () => {
  const forms: Record<string, readonly string[]> = {
    'npm run arbiter -- serve &': ['npm', 'run', 'arbiter', '--', 'serve'],
    'node dist/src/cli/main.js serve &': [process.execPath, 'dist/src/cli/main.js', 'serve'],
  };

  for (const [form, [command = '', ...args]] of Object.entries(forms)) {
    it(`stops, frees its port and leaves no process when \`${form}\` is followed by \`kill $!\``, async () => {
      if (!existsSync('dist/src/cli/main.js')) throw new Error('run `npm run build` first: this test starts dist/');
      const port = await freePort();
      const dataDirectory = mkdtempSync(join(tmpdir(), 'arbiter-serve-'));
      // What `&` in a script gives: a process whose pid is `$!`, here in a group of its own so the test sees its children.
      const child = spawn(command, [...args, '--port', String(port), '--data-dir', dataDirectory], {
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      started.push(child);
      const pid = child.pid ?? 0;
      let output = '';
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      await new Promise<void>((resolve, reject) => {
        child.stdout?.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes('listening on')) resolve();
        });
        child.stderr?.on('data', (chunk: Buffer) => {
          output += chunk.toString();
        });
        child.once('exit', () => reject(new Error(`serve exited before listening:\n${output}`)));
      });
      expect(await portIsFree(port)).toBe(false);

      process.kill(pid, 'SIGTERM');
      await exited;
      // What `kill $!` reached may exit before what it started: give the rest of the group time to go, then look.
      const giveUpAt = Date.now() + 20_000;
      while (processGroup(pid).length > 0 && Date.now() < giveUpAt) await sleep(50);
      expect(processGroup(pid)).toEqual([]);
      expect(await portIsFree(port)).toBe(true);
    }, 60_000);
  }
});
