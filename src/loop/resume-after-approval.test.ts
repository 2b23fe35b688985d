import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { countPayments } from '../gate/test-support/payment-tools.js';
import { openGateHarness } from '../store/sqlite/test-support/gate-harness.js';

const run = promisify(execFile);
const child = 'src/store/sqlite/test-support/approval-child.ts';

async function inChild(...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', child, ...args], { cwd: process.cwd() });
  return JSON.parse(stdout.trim()) as Record<string, unknown>;
}

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe('resumeAfterApproval', () => {
  it('continues a run in a separate process after the first one exited while awaiting approval', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'arbiter-approval-'));
    directories.push(directory);
    const path = join(directory, 'arbiter.db');

    const started = await inChild('start', path);
    expect(started).toMatchObject({ stopReason: 'awaiting_approval' });
    const [approvalId] = started['approvalIds'] as string[];
    if (approvalId === undefined) throw new Error('no approval was recorded');

    const between = openGateHarness({ path });
    expect(between.broker.getApproval(approvalId)?.status).toBe('pending');
    expect(countPayments(between.store.database)).toBe(0);
    expect((await between.sessions.load(started['sessionId'] as string))?.status).toBe('awaiting_approval');
    between.store.close();

    const decided = await inChild('decide', path, approvalId, 'approve');
    expect(decided['pid']).not.toBe(started['pid']);
    expect(decided).toMatchObject({
      status: 'resumed',
      stopReason: 'completed',
      toolMessage: '{"payment_id":1,"account":"AC2002","amount_cents":25000}',
      text: 'Your payment is handled.',
      payments: 1,
    });

    const again = inChild('decide', path, approvalId, 'approve');
    await expect(again).rejects.toThrow(/already decided: approved by li\.wei/);

    const after = openGateHarness({ path });
    expect(countPayments(after.store.database)).toBe(1);
    expect(after.audit.listAudit().map((entry) => [entry.decision, entry.approver, entry.outcome])).toEqual([
      ['approved', 'li.wei', 'ok'],
    ]);
    after.store.close();
  });
});
