import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../core/principal.js';
import { countPayments } from '../../gate/test-support/payment-tools.js';
import { runAgent } from '../../loop/run-agent.js';
import { gateMigrations } from './migrations/gate-migrations.js';
import { migrations } from './migrations/index.js';
import { SqliteIdempotencyStore } from './sqlite-idempotency-store.js';
import { migrate, openSqliteStore } from './sqlite-store.js';
import { startChildUntil } from './test-support/child-process.js';
import {
  callsWithIds,
  type GateHarness,
  openGateHarness,
  statelessModel,
  toolMessage,
} from './test-support/gate-harness.js';

const payment = { account: 'AC2002', amount_cents: 5_000, reference: 'INV-5' };

function pay(
  harness: GateHarness,
  args: Record<string, unknown> = payment,
  options: { idempotency?: SqliteIdempotencyStore } = {},
) {
  return runAgent({
    ...harness.runOptions,
    ...options,
    model: statelessModel([callsWithIds(['call_pay', 'send_payment', args])]),
    messages: [{ role: 'user', content: 'Pay INV-5' }],
  });
}

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true, maxRetries: 5 });
});

/** A tool message's fields, as JSON text without the replay's `already_done` note, and whether it had one. */
function answered(content: string | undefined): { alreadyDone: boolean; fields: string } {
  const { already_done: note, ...fields } = JSON.parse(content ?? 'null') as Record<string, unknown>;
  return { alreadyDone: typeof note === 'string', fields: JSON.stringify(fields) };
}

describe('SqliteIdempotencyStore', () => {
  it('returns the first outcome without executing again when the key was completed', async () => {
    const harness = openGateHarness();
    const first = await pay(harness);
    const second = await pay(harness);
    expect(countPayments(harness.store.database)).toBe(1);
    // The earlier answer's fields, said as done before (already_done) rather than now.
    expect(answered(toolMessage(second.messages, 'call_pay'))).toEqual({
      alreadyDone: true,
      fields: answered(toolMessage(first.messages, 'call_pay')).fields,
    });
    expect(harness.audit.listAudit().map((entry) => entry.outcome)).toEqual(['ok', 'replayed:ok']);
  });

  it('frees the key when the tool refused and changed nothing, so a later call is not answered from a stale refusal', async () => {
    const harness = openGateHarness();
    const missing = { ...payment, account: 'AC0000' };
    await pay(harness, missing);
    const keys = harness.store.database.prepare('SELECT COUNT(*) AS count FROM idempotency_claims').get() as {
      count: number;
    };
    expect(keys.count).toBe(0);
    await pay(harness, missing);
    expect(harness.audit.listAudit().map((entry) => entry.outcome)).toEqual(['account_not_found', 'account_not_found']);
  });

  it('executes once when identical calls of this process overlap, and gives every caller the same result', async () => {
    const harness = openGateHarness({ onExecute: () => new Promise((resolve) => setTimeout(resolve, 20)) });
    const results = await Promise.all(Array.from({ length: 20 }, () => pay(harness)));
    expect(countPayments(harness.store.database)).toBe(1);
    expect(new Set(results.map((result) => answered(toolMessage(result.messages, 'call_pay')).fields)).size).toBe(1);
    const outcomes = harness.audit.listAudit().map((entry) => entry.outcome);
    expect(outcomes.filter((outcome) => outcome === 'ok')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'replayed:ok')).toHaveLength(19);
  });

  it('answers outcome_unknown, without executing, for a key another process claimed and never completed', async () => {
    const harness = openGateHarness();
    harness.store.database
      .prepare(
        `INSERT INTO idempotency_claims (tenant_id, scope_user_id, key, claimant_user_id, status, tool, run_id,
           tool_call_id, owner, claimed_at)
         VALUES ('bank', 'U1', 'payment:AC2002:5000:INV-5', 'U1', 'claimed', 'send_payment', 'run-0', 'call_0',
           '99999:feedface', ?)`,
      )
      .run(Date.now());
    const result = await pay(harness);
    expect(toolMessage(result.messages, 'call_pay')).toMatchInlineSnapshot(
      `"Not run: an earlier attempt of exactly this send_payment call was interrupted and its outcome is unknown. It will not be repeated automatically; tell the user a person will check it."`,
    );
    expect(countPayments(harness.store.database)).toBe(0);
  });

  it('stops waiting for a call of this process that has run longer than the stale threshold', async () => {
    let release: () => void = () => {};
    const harness = openGateHarness({ onExecute: () => new Promise<void>((resolve) => (release = resolve)) });
    const impatient = new SqliteIdempotencyStore({ database: harness.store.database, staleAfterMs: 30 });
    const first = pay(harness);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await pay(harness, payment, { idempotency: impatient });
    expect(second.messages.at(-2)).toMatchObject({
      role: 'tool',
      content: expect.stringContaining('outcome is unknown'),
    });
    release();
    await first;
    expect(countPayments(harness.store.database)).toBe(1);
  });

  it('leaves outcome_unknown when the process executing the call is killed, and a new process does not execute it again', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'arbiter-idempotency-'));
    directories.push(directory);
    const path = join(directory, 'arbiter.db');
    const { child, exited } = await startChildUntil(
      'src/store/sqlite/test-support/idempotency-child.ts',
      [path],
      'executing',
    );
    child.kill('SIGKILL');
    await exited;

    const executed: unknown[] = [];
    const harness = openGateHarness({ path, onExecute: (args) => void executed.push(args) });
    try {
      const row = harness.store.database.prepare('SELECT status, owner FROM idempotency_claims').get() as {
        status: string;
        owner: string;
      };
      expect(row.status).toBe('claimed');
      // The owner names this machine and the dead process: looked up, it is gone.
      expect(row.owner.split(':').slice(0, 2)).toEqual([
        SqliteIdempotencyStore.processOwner.split(':')[0],
        String(child.pid),
      ]);
      const result = await pay(harness);
      expect(toolMessage(result.messages, 'call_pay')).toContain('its outcome is unknown');
      expect(executed).toEqual([]);
      expect(countPayments(harness.store.database)).toBe(0);
      expect(harness.audit.listAudit().map((entry) => entry.outcome)).toEqual(['outcome_unknown']);
    } finally {
      harness.store.close();
    }
  });

  it("gives another tenant's user with the same id, and another user of the tenant, their own key: each executes once", async () => {
    const harness = openGateHarness();
    const payAs = (principal: Principal) =>
      runAgent({
        ...harness.runOptions,
        principal,
        model: statelessModel([callsWithIds(['call_pay', 'send_payment', payment])]),
        messages: [{ role: 'user', content: 'Pay INV-5' }],
      });
    const first = await payAs({ tenantId: 'bank', userId: 'U1', roles: [] });
    const otherTenant = await payAs({ tenantId: 'other-bank', userId: 'U1', roles: [] });
    const otherUser = await payAs({ tenantId: 'bank', userId: 'U2', roles: [] });
    const again = await payAs({ tenantId: 'bank', userId: 'U1', roles: [] });
    const answers = [first, otherTenant, otherUser, again].map((result) => toolMessage(result.messages, 'call_pay'));
    expect(new Set(answers.slice(0, 3)).size).toBe(3);
    expect(answered(answers[3])).toEqual({ alreadyDone: true, fields: answered(answers[0]).fields });
    expect(harness.store.database.prepare('SELECT tenant, payer FROM payments ORDER BY payment_id').all()).toEqual([
      { tenant: 'bank', payer: 'U1' },
      { tenant: 'other-bank', payer: 'U1' },
      { tenant: 'bank', payer: 'U2' },
    ]);
    expect(
      harness.audit.listAudit().map(({ tenantId, userId, outcome, replayOf }) => [tenantId, userId, outcome, replayOf]),
    ).toEqual([
      ['bank', 'U1', 'ok', undefined],
      ['other-bank', 'U1', 'ok', undefined],
      ['bank', 'U2', 'ok', undefined],
      ['bank', 'U1', 'replayed:ok', { runId: first.runId, toolCallId: 'call_pay' }],
    ]);
  });

  it('shares a tenant-wide key across the tenant without handing one user the outcome of another', async () => {
    const harness = openGateHarness();
    const store = harness.idempotency;
    const request = { key: 'payment:AC2002:5000:INV-5', scope: 'tenant' as const, tool: 'send_payment' };
    const first = await store.claim({
      ...request,
      claimant: { tenantId: 'bank', userId: 'S1' },
      runId: 'run-1',
      toolCallId: 'call_1',
    });
    if (first.status !== 'claimed') throw new Error(`expected claimed, got ${first.status}`);
    await first.complete({ ok: true, data: { payment_id: 7, balance_cents: 115_000 } });

    const colleague = await store.claim({
      ...request,
      claimant: { tenantId: 'bank', userId: 'S2' },
      runId: 'run-2',
      toolCallId: 'call_2',
    });
    expect(colleague).toEqual({
      status: 'claimed_by_another_user',
      original: { runId: 'run-1', toolCallId: 'call_1' },
    });
    const same = await store.claim({
      ...request,
      claimant: { tenantId: 'bank', userId: 'S1' },
      runId: 'run-3',
      toolCallId: 'call_3',
    });
    expect(same).toEqual({
      status: 'completed',
      outcome: { ok: true, data: { payment_id: 7, balance_cents: 115_000 } },
      original: { runId: 'run-1', toolCallId: 'call_1' },
    });
    const otherTenant = await store.claim({
      ...request,
      claimant: { tenantId: 'other-bank', userId: 'S2' },
      runId: 'run-4',
      toolCallId: 'call_4',
    });
    expect(otherTenant.status).toBe('claimed');
  });

  it("refuses a tenant-wide key claimed by a colleague through the runner, in the model's words, auditing who tried", async () => {
    const harness = openGateHarness({ idempotencyScope: 'tenant' });
    const payAs = (userId: string, locale: 'en' | 'zh-CN' = 'en') =>
      runAgent({
        ...harness.runOptions,
        locale,
        principal: { tenantId: 'bank', userId, roles: [] },
        model: statelessModel([
          callsWithIds([
            `call_${userId}`,
            'send_payment',
            { account: 'AC2002', amount_cents: 5_000, reference: 'INV-5' },
          ]),
        ]),
        messages: [{ role: 'user', content: 'Pay INV-5' }],
      });
    const first = await payAs('S1');
    const colleague = await payAs('S2');
    const chinese = await payAs('S3', 'zh-CN');
    expect(countPayments(harness.store.database)).toBe(1);
    expect(toolMessage(colleague.messages, 'call_S2')).toMatchInlineSnapshot(
      `"Refused (claimed_by_another_user): Someone else already made exactly this request, so it was not made again; its result is theirs and is not shown here. Look up the current state instead of repeating it. Do not call send_payment again for this; tell the user what happened."`,
    );
    expect(toolMessage(chinese.messages, 'call_S3')).toMatchInlineSnapshot(
      `"已拒绝（claimed_by_another_user）：其他人已经提交过完全相同的请求，因此没有重复执行；其结果属于对方，不在此显示。请查询当前状态，不要重复提交。 不要为此再次调用 send_payment，请把情况如实告诉用户。"`,
    );
    expect(toolMessage(colleague.messages, 'call_S2')).not.toContain('payment_id');
    expect(harness.audit.listAudit().map(({ userId, outcome, replayOf }) => [userId, outcome, replayOf])).toEqual([
      ['S1', 'ok', undefined],
      ['S2', 'claimed_by_another_user', { runId: first.runId, toolCallId: 'call_S1' }],
      ['S3', 'claimed_by_another_user', { runId: first.runId, toolCallId: 'call_S1' }],
    ]);
  });

  it('never runs a key claimed before keys were scoped again for any principal: outcome unknown, naming the old call', async () => {
    const store = openSqliteStore({
      path: ':memory:',
      migrations: migrations.filter((migration) => migration.version < 13),
    });
    store.database
      .prepare(
        `INSERT INTO idempotency_keys (key, status, tool, run_id, tool_call_id, owner, outcome, claimed_at, completed_at)
         VALUES ('refund:SO20260901:2000', 'completed', 'apply_refund', 'run-old', 'call_old', 'x', '{"ok":true,"data":1}', 1, 2)`,
      )
      .run();
    migrate(store.database, gateMigrations);
    const idempotency = new SqliteIdempotencyStore({ database: store.database });
    const request = { key: 'refund:SO20260901:2000', runId: 'run-new', toolCallId: 'call_new', tool: 'apply_refund' };
    for (const claimant of [
      { tenantId: 'shop', userId: 'C1001' },
      { tenantId: 'other-shop', userId: 'C1001' },
    ]) {
      expect(await idempotency.claim({ ...request, claimant })).toEqual({
        status: 'outcome_unknown',
        claimedAt: 1,
        original: { runId: 'run-old', toolCallId: 'call_old' },
      });
    }
    expect(
      await idempotency.claim({
        ...request,
        key: 'refund:SO20260901:2001',
        claimant: { tenantId: 'shop', userId: 'C1001' },
      }),
    ).toMatchObject({ status: 'claimed' });
    expect(countRows(store.database)).toBe(2);
    store.close();
  });

  it('keeps the keys claimed before keys were scoped, as keys of calls without a principal', () => {
    const store = openSqliteStore({
      path: ':memory:',
      migrations: migrations.filter((migration) => migration.version < 13),
    });
    store.database
      .prepare(
        `INSERT INTO idempotency_keys (key, status, tool, run_id, tool_call_id, owner, outcome, claimed_at, completed_at)
         VALUES ('refund:SO20260901:2000', 'completed', 'apply_refund', 'run-old', 'call_old', 'x', '{"ok":true,"data":1}', 1, 2)`,
      )
      .run();
    migrate(store.database, gateMigrations);
    expect(
      store.database
        .prepare('SELECT tenant_id, scope_user_id, key, claimant_user_id, run_id FROM idempotency_claims')
        .all(),
    ).toEqual([
      { tenant_id: '', scope_user_id: '', key: 'refund:SO20260901:2000', claimant_user_id: '', run_id: 'run-old' },
    ]);
    store.close();
  });
});

function countRows(database: Database.Database): number {
  return (database.prepare('SELECT COUNT(*) AS count FROM idempotency_claims').get() as { count: number }).count;
}
