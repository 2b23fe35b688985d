/**
 * `arbiter approve` under the server's four-eyes rule, as a person runs it:
 * the shop demo leaves customer C1001's 200.00 yuan refund waiting; `--by
 * C1001` is refused and audited (the approval stays pending), `--tools` is
 * loaded and checked, and another approver's decision is recorded with the
 * OS user and host it came from, then the demo's run goes on.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-four-eyes-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function arbiter(...args: string[]) {
  const { APPROVE: _approve, ...inherited } = process.env;
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args, '--data-dir', dataDir], {
    encoding: 'utf8',
    env: { ...inherited, NO_COLOR: '1', ARBITER_STORE_URL: '' },
    timeout: 120_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** What the command line records beside the name --by gives: this machine's OS user and host. */
const origin = `(command line: OS user ${userInfo().username}, host ${hostname()})`;

describe('arbiter approve and the four-eyes rule', () => {
  it('refuses C1001 approving her own refund, checks --tools, and records who approved it from where', () => {
    const demo = arbiter('demo');
    expect(demo.code).toBe(0);
    const approvalId = /\[awaiting approval\] (ap_[0-9a-f]{12})/.exec(demo.stdout)?.[1] ?? 'none';

    const own = arbiter('approve', approvalId, '--by', 'C1001');
    expect(own).toEqual({
      code: 1,
      stdout: '',
      stderr: `arbiter: approval ${approvalId} was requested by C1001; under the four-eyes rule another approver of the tenant must decide it (refused, and audited)\n`,
    });
    // Rejecting one's own request is deciding it too.
    expect(arbiter('approve', approvalId, '--reject', '--by', 'C1001').code).toBe(1);
    expect(arbiter('approvals').stdout).toContain(`${approvalId}  pending`);
    const refused = arbiter('audit')
      .stdout.split('\n')
      .filter((line) => line.includes('four_eyes'));
    expect(refused).toHaveLength(2);
    expect(refused[0]).toMatch(/apply_refund\s+irreversible\s+denied\s+four_eyes\s+C1001 \(command line: /);
    expect(refused[0]).toContain(origin);
    expect(refused[0]).toContain('self_approval_refused');

    // --tools is loaded: a module without the approval's tool cannot approve it; one that does not load says so.
    const lacking = arbiter(
      'approve',
      approvalId,
      '--by',
      'S9001',
      '--tools',
      'test/fixtures/app-tools/ticket-tools.ts',
    );
    expect(lacking.code).toBe(1);
    expect(lacking.stderr).toContain('is for apply_refund, which the tools of --tools do not define');
    const missing = arbiter('approve', approvalId, '--by', 'S9001', '--tools', 'test/fixtures/app-tools/none.ts');
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(arbiter('approvals').stdout).toContain(`${approvalId}  pending`);

    // Another approver: recorded with where it was decided, and the demo's run goes on.
    const approved = arbiter('approve', approvalId, '--by', 'S9001');
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain(`approved ${approvalId} by S9001 ${origin}: apply_refund`);
    expect(approved.stdout).toContain('[refunded]');
    const ran = arbiter('audit')
      .stdout.split('\n')
      .filter((line) => / approved /.test(line));
    expect(ran).toHaveLength(1);
    expect(ran[0]).toMatch(/apply_refund\s+irreversible\s+approved\s+refund_50_yuan_or_more\s+S9001 \(command line: /);
    expect(ran[0]).toContain(origin);
  }, 600_000);
});
