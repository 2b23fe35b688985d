import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../gate/audit-log.js';
import { SqliteApprovalBroker } from './sqlite-approval-broker.js';
import { SqliteAuditLog } from './sqlite-audit-log.js';
import { SqliteIdempotencyStore } from './sqlite-idempotency-store.js';
import { openSqliteStore, type SqliteStore } from './sqlite-store.js';

const directories: string[] = [];
const closers: (() => void)[] = [];

afterEach(() => {
  for (const close of closers.splice(0)) close();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** The store a run writes through (25 ms busy timeout, as the server opens it) and a second connection that locks it. */
function lockedStore(): { store: SqliteStore; lock: () => void; unlock: () => void } {
  const directory = mkdtempSync(join(tmpdir(), 'arbiter-gate-busy-'));
  directories.push(directory);
  const path = join(directory, 'arbiter.db');
  const store = openSqliteStore({ path, busyTimeoutMs: 25 });
  const other = new Database(path);
  closers.push(
    () => store.close(),
    () => other.close(),
  );
  return {
    store,
    lock: () => other.exec('BEGIN EXCLUSIVE'),
    unlock: () => other.exec('COMMIT'),
  };
}

const entry: AuditEntry = {
  at: 1,
  sessionId: 'session-1',
  runId: 'run-1',
  step: 1,
  toolCallId: 'call_1',
  tool: 'apply_refund',
  sideEffect: 'irreversible',
  argumentsHash: 'hash',
  arguments: { order_id: 'SO20260901' },
  decision: 'approved',
  rule: undefined,
  approver: undefined,
  outcome: 'ok',
  durationMs: 1,
};

const claimant = { tenantId: 'shop', userId: 'C1001' };

describe('gate stores while another connection holds the database locked', () => {
  it('fail at once without a busy wait, as before', async () => {
    const { store, lock } = lockedStore();
    lock();
    const audit = new SqliteAuditLog({ database: store.database });
    expect(() => audit.append(entry)).toThrow(/locked/);
  });

  it('claim a key, record its outcome, request an approval and append audit rows once the lock is released', async () => {
    const { store, lock, unlock } = lockedStore();
    const options = { database: store.database, busyWaitMs: 5_000 };
    const idempotency = new SqliteIdempotencyStore(options);
    const approvals = new SqliteApprovalBroker(options);
    const audit = new SqliteAuditLog(options);
    lock();
    let released = false;
    setTimeout(() => {
      released = true;
      unlock();
    }, 150);
    const claim = await idempotency.claim({
      key: 'refund:SO20260901:2000',
      claimant,
      runId: 'run-1',
      toolCallId: 'call_1',
      tool: 'apply_refund',
    });
    expect(released).toBe(true);
    expect(claim.status).toBe('claimed');

    lock();
    setTimeout(unlock, 100);
    if (claim.status === 'claimed') await claim.complete({ ok: true, data: { refund_no: 'RF2026090001' } });
    lock();
    setTimeout(unlock, 100);
    await audit.append(entry);
    lock();
    setTimeout(unlock, 100);
    const state = await approvals.decide(
      {
        runId: 'run-1',
        sessionId: 'session-1',
        step: 2,
        toolCallId: 'call_2',
        tool: 'apply_refund',
        arguments: { order_id: 'SO20260901', amount_cents: 20_000 },
        argumentsHash: 'hash-2',
        rule: 'refund_50_yuan_or_more',
        reason: 'Refunds of 50.00 yuan or more need staff approval.',
      },
      { signal: new AbortController().signal },
    );
    expect(state.status).toBe('pending');

    const again = await idempotency.claim({
      key: 'refund:SO20260901:2000',
      claimant,
      runId: 'run-2',
      toolCallId: 'call_9',
      tool: 'apply_refund',
    });
    expect(again).toMatchObject({ status: 'completed', outcome: { ok: true, data: { refund_no: 'RF2026090001' } } });
    expect(audit.listAudit({ sessionId: 'session-1' })).toHaveLength(1);
  });
});
