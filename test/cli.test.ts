import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { openShopDatabase } from '../examples/shop/shop-database.js';

/** Runs the real `arbiter` entry point in a child process, as a user would (stdout a pipe, not a terminal). */
function arbiter(...args: string[]) {
  return arbiterWith({}, ...args);
}

function arbiterWith(environment: Record<string, string>, ...args: string[]) {
  const { APPROVE: _approve, ...inherited } = process.env;
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    encoding: 'utf8',
    env: { ...inherited, NO_COLOR: '1', ...environment },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const dataDirectory = () => mkdtempSync(join(tmpdir(), 'arbiter-cli-'));

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

  it('prints each progress line under the call it belongs to when stdout is a pipe', () => {
    const { stdout } = arbiter('demo', '--data-dir', dataDirectory());
    const lines = stdout.split('\n');
    const call = lines.indexOf('model     calls query_order {"order_id":12345}');
    expect(lines.indexOf('  › Fixing the request…')).toBe(call + 1);
    expect(lines.indexOf('  › Looking up your order…')).toBe(
      lines.indexOf('model     calls query_order {"order_id":"SO20260901"}') + 1,
    );
    expect(lines.findIndex((line) => line.startsWith('customer'))).toBeLessThan(call);
  });

  it('continues the approval a plain demo left pending when APPROVE=1 is given next, in the same session', () => {
    const directory = dataDirectory();
    const first = arbiter('demo', '--data-dir', directory);
    const approvalId = /\[awaiting approval\] (ap_[0-9a-f]{12})/.exec(first.stdout)?.[1] ?? 'none';
    const sessionId = /^session (\S+) /.exec(first.stdout)?.[1] ?? 'none';
    const second = arbiterWith({ APPROVE: '1' }, 'demo', '--data-dir', directory);
    expect(second.code).toBe(0);
    expect(second.stdout.split('\n')[1]).toBe(
      `continuing session ${sessionId} of an earlier demo: its run waits for approval ${approvalId} (--new starts a new session instead)`,
    );
    expect(second.stdout).not.toContain('customer ');
    expect(second.stdout).not.toContain('did not run again');
    expect(second.stdout).toContain('arbiter   [refunded] RF2026090004: 200.00 yuan on SO20260902');
    expect(arbiter('approvals', '--data-dir', directory).stdout).toBe('no pending approvals\n');
    expect(arbiter('approvals', '--all', '--data-dir', directory).stdout).toContain(
      `${approvalId}  approved by demo-operator`,
    );

    const fresh = arbiterWith({ APPROVE: '1' }, 'demo', '--new', '--data-dir', directory);
    expect(fresh.stdout).not.toContain('continuing session');
    expect(fresh.stdout).not.toContain(sessionId);
    expect(arbiter('demo', '--new', '--session', sessionId, '--data-dir', directory).code).toBe(2);
  }, 120_000);

  it('continues a zh-CN demo in Chinese from its first line when APPROVE=1 is given without --lang', () => {
    const directory = dataDirectory();
    const first = arbiter('demo', '--lang', 'zh-CN', '--data-dir', directory);
    const sessionId = /^会话 (\S+)（/.exec(first.stdout)?.[1] ?? 'none';
    const second = arbiterWith({ APPROVE: '1' }, 'demo', '--data-dir', directory);
    expect(second.code).toBe(0);
    const [line, continuing] = second.stdout.split('\n');
    expect(line).toBe(`会话 ${sessionId}（用 --session ${sessionId} 继续）`);
    expect(continuing).toMatch(new RegExp(`^继续会话 ${sessionId}：`));
  }, 120_000);

  it('refuses --session with an id no session has, and creates nothing', () => {
    const directory = dataDirectory();
    const typo = arbiter('demo', '--session', 'typo', '--data-dir', directory);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(`arbiter: no session typo in ${join(directory, 'arbiter.db')}`);
    expect(readdirSync(directory)).toEqual([]);
  });

  it('prints the command that undoes the note the demo adds, and that command undoes it once', () => {
    const directory = dataDirectory();
    const demo = arbiter('demo', '--data-dir', directory);
    const hint = /reversible; to take it back: npm run arbiter -- (undo .*)$/m.exec(demo.stdout)?.[1];
    expect(hint).toMatch(new RegExp(`^undo call_4 --run [0-9a-f-]{36} --data-dir ${directory}$`));
    const args = (hint ?? '').split(' ');
    const notes = () => {
      const shop = openShopDatabase({ path: join(directory, 'shop.db') });
      try {
        return shop.connection
          .prepare("SELECT COUNT(*) AS count FROM order_notes WHERE note LIKE 'Please leave%'")
          .get();
      } finally {
        shop.close();
      }
    };
    expect(notes()).toEqual({ count: 1 });
    const undone = arbiter(...args, '--by', 'li.wei');
    expect(undone).toMatchObject({ code: 0, stderr: '' });
    expect(undone.stdout).toMatch(
      /^undone call_4 \(add_order_note \{.*"note":"Please leave the parcel at the building reception\."/,
    );
    expect(notes()).toEqual({ count: 0 });
    expect(arbiter(...args).code).toBe(1);
  }, 120_000);

  it('says there is no store, with exit 2 and no stack, when undo is pointed at a directory that does not exist', () => {
    const missing = join(dataDirectory(), 'nonexistent');
    const undo = arbiter('undo', 'call_3', '--data-dir', missing);
    expect(undo.code).toBe(2);
    expect(undo.stderr).toBe(`arbiter: no arbiter store at ${join(missing, 'arbiter.db')}\n`);
    expect(existsSync(missing)).toBe(false);
  });

  it('creates nothing in an empty data directory with the commands that read state', () => {
    const directory = dataDirectory();
    const codes = [
      ['undo', 'call_3'],
      ['approvals'],
      ['approvals', '--all'],
      ['approve', 'ap_000000000000'],
      ['audit'],
      ['sessions', 'list'],
      ['sessions', 'show', 'nope'],
      ['sessions', 'export', 'nope'],
      ['sessions', 'fork', 'nope', '--at', '1'],
      ['sessions', 'purge', '--expired'],
      ['stats'],
    ].map((args) => `${args.join(' ')}: ${arbiter(...args, '--data-dir', directory).code}`);
    expect(codes).toEqual([
      'undo call_3: 2',
      'approvals: 2',
      'approvals --all: 2',
      'approve ap_000000000000: 2',
      'audit: 2',
      'sessions list: 2',
      'sessions show nope: 2',
      'sessions export nope: 2',
      'sessions fork nope --at 1: 2',
      'sessions purge --expired: 2',
      'stats: 1',
    ]);
    expect(readdirSync(directory)).toEqual([]);
  }, 120_000);

  it('refuses sessions fork without --at as a usage error', () => {
    const directory = dataDirectory();
    const sessionId = /^session (\S+) /.exec(arbiter('demo', '--data-dir', directory).stdout)?.[1] ?? 'none';
    const fork = arbiter('sessions', 'fork', sessionId, '--data-dir', directory);
    expect(fork.code).toBe(2);
    expect(fork.stderr).toContain('arbiter: sessions fork needs --at N');
    expect(arbiter('sessions', 'fork', sessionId, '--at', '1', '--data-dir', directory).code).toBe(0);
  }, 120_000);

  it('prints stop reasons and audit rows in Chinese with --lang zh-CN', () => {
    const { stdout } = arbiter('demo', '--lang', 'zh-CN', '--data-dir', dataDirectory());
    expect(stdout).toContain('[已完成] 模型已作答');
    expect(stdout).toContain('[等待确认] 有调用在等待人工确认');
    expect(stdout).toMatch(/^审计 +apply_refund +不可逆 +自动放行 +refund_under_50_yuan +- +成功$/m);
    for (const english of ['[completed]', '[awaiting_approval]', ' allowed ', ' irreversible ', ' auto_approved ']) {
      expect(stdout).not.toContain(english);
    }
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
