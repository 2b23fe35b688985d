import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runSession } from '../../loop/run-session.js';
import { callsWithIds, openGateHarness, statelessModel } from '../../store/sqlite/test-support/gate-harness.js';
import { approvalsCommand } from './approvals.js';
import { approveCommand } from './approve.js';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** A stored run that waits for two approvals. */
async function suspendedRun() {
  const dataDirectory = mkdtempSync(join(tmpdir(), 'arbiter-approve-'));
  directories.push(dataDirectory);
  const harness = openGateHarness({ path: join(dataDirectory, 'arbiter.db') });
  const session = await harness.sessions.create({ principal: harness.runOptions.principal });
  const result = await runSession({
    ...harness.runOptions,
    sessions: harness.sessions,
    sessionId: session.id,
    userMessage: 'Pay both',
    approvals: harness.broker,
    model: statelessModel([
      callsWithIds(
        ['call_a', 'send_payment', { account: 'AC2002', amount_cents: 25_000, reference: 'A' }],
        ['call_b', 'send_payment', { account: 'AC3003', amount_cents: 30_000, reference: 'B' }],
      ),
    ]),
  });
  const ids = harness.broker.listApprovals({ runId: result.runId }).map((approval) => approval.approvalId);
  harness.store.close();
  return { dataDirectory, ids, sessionId: session.id, runId: result.runId };
}

describe('approveCommand', () => {
  it('records the decision and says how many approvals the run still waits for', async () => {
    const { dataDirectory, ids, runId } = await suspendedRun();
    const result = await approveCommand({ approvalId: ids[0] ?? '', approver: 'li.wei', dataDirectory });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.map((line) => line.replace(ids[0] ?? '', 'ID').replace(runId, 'RUN'))).toMatchInlineSnapshot(`
      [
        "approved ID by li.wei: send_payment {"account":"AC2002","amount_cents":25000,"reference":"A","tenant":"bank","payer":"U1"}",
        "run RUN is still waiting for 1 approval",
      ]
    `);
  });

  it('says it in Chinese with locale zh-CN', async () => {
    const { dataDirectory, ids, runId, sessionId } = await suspendedRun();
    const first = await approveCommand({
      approvalId: ids[0] ?? '',
      approver: 'li.wei',
      dataDirectory,
      locale: 'zh-CN',
    });
    const second = await approveCommand({
      approvalId: ids[1] ?? '',
      decision: 'reject',
      approver: 'li.wei',
      dataDirectory,
      locale: 'zh-CN',
    });
    const lines = [...first.stdout, ...second.stdout].map((line) =>
      line
        .replace(ids[0] ?? '', 'ID0')
        .replace(ids[1] ?? '', 'ID1')
        .replace(runId, 'RUN')
        .replace(sessionId, 'SESSION'),
    );
    expect(lines).toMatchInlineSnapshot(`
      [
        "li.wei 已确认 ID0：send_payment {"account":"AC2002","amount_cents":25000,"reference":"A","tenant":"bank","payer":"U1"}",
        "本轮 RUN 还在等待 1 个确认",
        "li.wei 已拒绝 ID1：send_payment {"account":"AC3003","amount_cents":30000,"reference":"B","tenant":"bank","payer":"U1"}",
        "本轮 RUN 的确认都已处理；继续会话 SESSION 即可接着运行",
      ]
    `);
  });

  it('hands the run to resume once its last approval is decided', async () => {
    const { dataDirectory, ids, sessionId, runId } = await suspendedRun();
    const resumed: unknown[] = [];
    const resume = async (target: { sessionId: string; runId: string }) => {
      resumed.push(target);
      return { stdout: ['resumed'] };
    };
    await approveCommand({
      approvalId: ids[0] ?? '',
      decision: 'reject',
      reason: 'wrong account',
      approver: 'li.wei',
      dataDirectory,
      resume,
    });
    expect(resumed).toEqual([]);
    const last = await approveCommand({ approvalId: ids[1] ?? '', approver: 'li.wei', dataDirectory, resume });
    expect(resumed).toEqual([{ sessionId, runId }]);
    expect(last.stdout.at(-1)).toBe('resumed');
  });

  it('fails with exit 1 and a clear message for an unknown approval', async () => {
    const { dataDirectory } = await suspendedRun();
    expect(await approveCommand({ approvalId: 'ap_000000000000', approver: 'li.wei', dataDirectory })).toEqual({
      exitCode: 1,
      stdout: [],
      stderr: ['no approval ap_000000000000 exists'],
    });
  });
});

describe('approvalsCommand', () => {
  it('lists pending approvals, or all of them, with the id to approve', async () => {
    const { dataDirectory, ids } = await suspendedRun();
    await approveCommand({ approvalId: ids[0] ?? '', approver: 'li.wei', dataDirectory });
    const pending = await approvalsCommand({ dataDirectory });
    expect(pending.stdout).toHaveLength(1);
    expect(pending.stdout[0]?.replace(/\d{4}-\d\d-\d\dT\S+/g, 'AT')).toMatch(
      new RegExp(
        `^${ids[1]}  pending  AT  send_payment \\{.*"amount_cents":30000.*\\}  \\(payment_100_or_more: Payments of 100\\.00 or more need a person\\.\\)  expires AT  policy rules-[0-9a-f]{12}$`,
      ),
    );
    // The approval given is a grant until it is used or expires.
    const given = await approvalsCommand({ dataDirectory, all: true });
    expect(given.stdout[0]).toMatch(/approved by li\.wei .* grant expires \d{4}-/);
    const all = await approvalsCommand({ dataDirectory, all: true, json: true });
    expect(all.stdout.map((line) => (JSON.parse(line) as { status: string }).status)).toEqual(['approved', 'pending']);
  });
});
