/**
 * Wrong names do not fail silently: the real `arbiter` with a mistyped
 * `ARBITER_*` variable, or another tool's `DATABASE_URL`, says which
 * variable it reads, and never prints the value.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function arbiter(args: readonly string[], environment: Record<string, string>) {
  return new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      env: { ...process.env, NO_COLOR: '1', ARBITER_STORE_URL: '', ...environment },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the environment arbiter is started in', () => {
  const empty = mkdtempSync(join(tmpdir(), 'arbiter-environment-'));

  it('warns of ARBITER_STORE and names ARBITER_STORE_URL, without the URL', async () => {
    const ran = await arbiter(['approvals', '--data-dir', empty], { ARBITER_STORE: 'postgres://u:hunter2@h/db' });
    expect(ran.stderr.split('\n')[0]).toBe(
      'arbiter: warning: ARBITER_STORE is not a variable arbiter reads (did you mean ARBITER_STORE_URL?); it is ignored',
    );
    expect(ran.stderr).not.toContain('hunter2');
  });

  it('names --store and ARBITER_STORE_URL when DATABASE_URL is set and no store is found', async () => {
    const ran = await arbiter(['approvals', '--data-dir', empty], { DATABASE_URL: 'postgres://u:hunter2@h/db' });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe(
      `arbiter: no arbiter store at ${join(empty, 'arbiter.db')} (DATABASE_URL is set, but arbiter reads ARBITER_STORE_URL or --store URL)\n`,
    );
  });
});
