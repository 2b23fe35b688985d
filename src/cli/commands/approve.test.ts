import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createPaymentTools } from '../../gate/test-support/payment-tools.js';
import { runSession } from '../../loop/run-session.js';
import { openSqliteBackend } from '../../store/sqlite/open-sqlite-backend.js';
import { ServerRuns } from '../../store/sqlite/sqlite-server-runs.js';
import { callsWithIds, openGateHarness, payer, statelessModel } from '../../store/sqlite/test-support/gate-harness.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import { approvalsCommand } from './approvals.js';
import { approveCommand } from './approve.js';

const directories: string[] = [];
/** Where these decisions are made, as the command line records it beside `--by`. */
const origin = { osUser: 'ops', host: 'desk-1' };
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
    const result = await approveCommand({ approvalId: ids[0] ?? '', approver: 'li.wei', origin, dataDirectory });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.map((line) => line.replace(ids[0] ?? '', 'ID').replace(runId, 'RUN'))).toMatchInlineSnapshot(`
      [
        "approved ID by li.wei (command line: OS user ops, host desk-1): send_payment {"account":"AC2002","amount_cents":25000,"reference":"A","tenant":"bank","payer":"U1"}",
        "run RUN is still waiting for 1 approval",
      ]
    `);
  });

  it('says it in Chinese with locale zh-CN', async () => {
    const { dataDirectory, ids, runId, sessionId } = await suspendedRun();
    const first = await approveCommand({
      approvalId: ids[0] ?? '',
      approver: 'li.wei',
      origin,
      dataDirectory,
      locale: 'zh-CN',
    });
    const second = await approveCommand({
      approvalId: ids[1] ?? '',
      decision: 'reject',
      approver: 'li.wei',
      origin,
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
        "li.wei (command line: OS user ops, host desk-1) 已确认 ID0：send_payment {"account":"AC2002","amount_cents":25000,"reference":"A","tenant":"bank","payer":"U1"}",
        "本轮 RUN 还在等待 1 个确认",
        "li.wei (command line: OS user ops, host desk-1) 已拒绝 ID1：send_payment {"account":"AC3003","amount_cents":30000,"reference":"B","tenant":"bank","payer":"U1"}",
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
      origin,
      dataDirectory,
      resume,
    });
    expect(resumed).toEqual([]);
    const last = await approveCommand({ approvalId: ids[1] ?? '', approver: 'li.wei', origin, dataDirectory, resume });
    expect(resumed).toEqual([{ sessionId, runId }]);
    expect(last.stdout.at(-1)).toBe('resumed');
  });

  it('fails with exit 1 and a clear message for an unknown approval', async () => {
    const { dataDirectory } = await suspendedRun();
    expect(await approveCommand({ approvalId: 'ap_000000000000', approver: 'li.wei', origin, dataDirectory })).toEqual({
      exitCode: 1,
      stdout: [],
      stderr: ['no approval ap_000000000000 exists'],
    });
  });
});

/** The store of `dataDirectory`, to look at what a command left there. */
function openBackend(dataDirectory: string) {
  return openSqliteBackend({ path: join(dataDirectory, 'arbiter.db') });
}

describe('approveCommand under the four-eyes rule', () => {
  it('refuses the requester deciding his own call, audits the refusal as the server does, and leaves it pending', async () => {
    const { dataDirectory, ids } = await suspendedRun();
    for (const decision of ['approve', 'reject'] as const) {
      const refused = await approveCommand({
        approvalId: ids[0] ?? '',
        decision,
        approver: payer.userId,
        origin,
        dataDirectory,
      });
      expect(refused).toEqual({
        exitCode: 1,
        stdout: [],
        stderr: [
          `approval ${ids[0]} was requested by U1; under the four-eyes rule another approver of the tenant must decide it (refused, and audited)`,
        ],
      });
    }
    const backend = openBackend(dataDirectory);
    try {
      expect(backend.approvals.getApproval(ids[0] ?? '')?.status).toBe('pending');
      const refusals = backend.audit.listAudit().filter((row) => row.rule === 'four_eyes');
      expect(refusals).toHaveLength(2);
      expect(refusals[0]).toMatchObject({
        decision: 'denied',
        outcome: 'self_approval_refused',
        tool: 'send_payment',
        approver: 'U1 (command line: OS user ops, host desk-1)',
      });
    } finally {
      backend.close();
    }
  });

  it('takes the OS user as the approver without --by, and refuses it too when it is the requester', async () => {
    const { dataDirectory, ids } = await suspendedRun();
    const refused = await approveCommand({
      approvalId: ids[0] ?? '',
      origin: { osUser: 'U1', host: 'desk-1' },
      dataDirectory,
    });
    expect(refused.exitCode).toBe(1);
    const allowed = await approveCommand({ approvalId: ids[0] ?? '', origin, dataDirectory });
    expect(allowed.stdout[0]).toContain(' by ops (command line: OS user ops, host desk-1): send_payment');
  });

  it('lets another user decide, and records the name given with where it was given', async () => {
    const { dataDirectory, ids } = await suspendedRun();
    // Another OS account, naming someone else again: allowed, and both names stay on record.
    const approved = await approveCommand({
      approvalId: ids[0] ?? '',
      approver: 'S9001',
      origin: { osUser: 'mallory', host: 'laptop-3' },
      dataDirectory,
    });
    expect(approved.exitCode).toBe(0);
    const backend = openBackend(dataDirectory);
    try {
      expect(backend.approvals.getApproval(ids[0] ?? '')).toMatchObject({
        status: 'approved',
        approver: 'S9001 (command line: OS user mallory, host laptop-3)',
      });
    } finally {
      backend.close();
    }
  });

  it("refuses the principal the server recorded for a run (an MCP client's), as the server does", async () => {
    const { dataDirectory, ids, runId, sessionId } = await suspendedRun();
    const backend = openBackend(dataDirectory);
    // The run as `arbiter serve` records it: its principal (here another than the session's owner).
    new ServerRuns({ database: backend.database }).insert({
      runId,
      sessionId,
      tenantId: 'bank',
      principal: { tenantId: 'bank', userId: 'agent-7', roles: ['customer'] },
      locale: 'en',
      messageOffset: 0,
    });
    backend.close();
    expect(
      (await approveCommand({ approvalId: ids[0] ?? '', approver: 'agent-7', origin, dataDirectory })).exitCode,
    ).toBe(1);
    // Anyone else may decide it.
    expect(
      (await approveCommand({ approvalId: ids[0] ?? '', approver: 'li.wei', origin, dataDirectory })).exitCode,
    ).toBe(0);
  });

  it.each(['', '  ', 'S9001 (command line: OS user boss, host hq)', 'li\nwei', 'C1001\u200b', 'C\u202e1001'])(
    'refuses --by %j, which names nobody or could forge an origin',
    async (by) => {
      const { dataDirectory, ids } = await suspendedRun();
      await expect(approveCommand({ approvalId: ids[0] ?? '', approver: by, origin, dataDirectory })).rejects.toThrow(
        /--by must name who decides/,
      );
    },
  );
});

describe('approveCommand with the application tools (--tools)', () => {
  /** The payment tools as the application's module would load them, the payment tool's definition changed by `change`. */
  function tools(change: (registry: ToolRegistry) => ToolRegistry = (registry) => registry) {
    return async () => {
      const database = new Database(':memory:');
      return {
        tools: change(createPaymentTools({ database })),
        close: () => {
          database.close();
        },
      };
    };
  }

  it('approves a call whose tool the module defines as it was when the call was held', async () => {
    const { dataDirectory, ids } = await suspendedRun();
    const approved = await approveCommand({
      approvalId: ids[0] ?? '',
      approver: 'li.wei',
      origin,
      dataDirectory,
      tools: tools(),
    });
    expect(approved.exitCode).toBe(0);
  });

  it('refuses to approve a tool the module lacks, or defines under another fingerprint; a rejection is recorded', async () => {
    const { dataDirectory, ids } = await suspendedRun();
    const lacking = await approveCommand({
      approvalId: ids[0] ?? '',
      approver: 'li.wei',
      origin,
      dataDirectory,
      tools: async () => ({ tools: new ToolRegistry(), close: () => {} }),
    });
    expect(lacking.exitCode).toBe(1);
    expect(lacking.stderr[0]).toContain('is for send_payment, which the tools of --tools do not define');
    const changed = await approveCommand({
      approvalId: ids[0] ?? '',
      approver: 'li.wei',
      origin,
      dataDirectory,
      tools: tools((registry) => {
        const pinned = new ToolRegistry();
        const payment = registry.get('send_payment')?.definition;
        if (payment !== undefined) pinned.register({ ...payment, fingerprint: 'sha256:another-definition' });
        return pinned;
      }),
    });
    expect(changed.exitCode).toBe(1);
    expect(changed.stderr[0]).toContain(
      '(fingerprint none); --tools defines it otherwise now (sha256:another-definition)',
    );
    const rejected = await approveCommand({
      approvalId: ids[0] ?? '',
      decision: 'reject',
      approver: 'li.wei',
      origin,
      dataDirectory,
      tools: async () => ({ tools: new ToolRegistry(), close: () => {} }),
    });
    expect(rejected.exitCode).toBe(0);
  });
});

describe('approvalsCommand', () => {
  it('lists pending approvals, or all of them, with the id to approve', async () => {
    const { dataDirectory, ids } = await suspendedRun();
    await approveCommand({ approvalId: ids[0] ?? '', approver: 'li.wei', origin, dataDirectory });
    const pending = await approvalsCommand({ dataDirectory });
    expect(pending.stdout).toHaveLength(1);
    expect(pending.stdout[0]?.replace(/\d{4}-\d\d-\d\dT\S+/g, 'AT')).toMatch(
      new RegExp(
        `^${ids[1]}  pending  AT  send_payment \\{.*"amount_cents":30000.*\\}  \\(payment_100_or_more: Payments of 100\\.00 or more need a person\\.\\)  expires AT  policy rules-[0-9a-f]{12}$`,
      ),
    );
    // The approval given is a grant until it is used or expires.
    const given = await approvalsCommand({ dataDirectory, all: true });
    expect(given.stdout[0]).toMatch(
      /approved by li\.wei \(command line: OS user ops, host desk-1\) .* grant expires \d{4}-/,
    );
    const all = await approvalsCommand({ dataDirectory, all: true, json: true });
    expect(all.stdout.map((line) => (JSON.parse(line) as { status: string }).status)).toEqual(['approved', 'pending']);
  });
});
