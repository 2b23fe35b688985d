import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../gate/audit-log.js';
import { openPostgresBackend, type PostgresBackend } from './open-postgres-backend.js';
import { setUpPostgresCluster } from './test-support/postgres-cluster.js';

// What every audit log does is in the AuditLog contract (postgres-backend.contract.test.ts).
const cluster = setUpPostgresCluster();

const entry = (toolCallId: string): AuditEntry => ({
  at: 1_000,
  sessionId: 'session-1',
  runId: 'run-1',
  step: 1,
  toolCallId,
  tool: 'send_payment',
  sideEffect: 'irreversible',
  argumentsHash: 'hash',
  arguments: { amount_cents: 5_000 },
  decision: 'approved',
  rule: 'large_payment',
  approver: 'ops@example.com',
  outcome: 'ok',
  durationMs: 1.5,
  tenantId: 'tenant-1',
  userId: 'user-1',
});

describe.skipIf(cluster.skip)('PostgresAuditLog', () => {
  const opened: PostgresBackend[] = [];
  afterEach(async () => {
    for (const backend of opened.splice(0)) await backend.close();
  });
  const open = async () => {
    const backend = await openPostgresBackend({
      connectionString: cluster.connectionString,
      schema: cluster.freshSchema(),
    });
    opened.push(backend);
    return backend;
  };

  it('refuses UPDATE, DELETE and TRUNCATE of the log through SQL, and keeps every row', async () => {
    const { audit, pool } = await open();
    await audit.append(entry('call_1'));
    await audit.append(entry('call_2'));
    const before = await audit.listAudit();
    await expect(pool.query("UPDATE audit_log SET outcome = 'undone'")).rejects.toMatchObject({
      message: 'audit_log is append-only: rows cannot be updated',
      code: '23001',
    });
    await expect(pool.query('DELETE FROM audit_log WHERE audit_id = $1', [before[0]?.auditId])).rejects.toMatchObject({
      message: 'audit_log is append-only: rows cannot be deleted',
      code: '23001',
    });
    await expect(pool.query('TRUNCATE audit_log')).rejects.toMatchObject({
      message: 'audit_log is append-only: rows cannot be truncated',
    });
    expect(await audit.listAudit()).toEqual(before);
    expect(before.map((row) => row.toolCallId)).toEqual(['call_1', 'call_2']);
  });

  it('numbers rows in append order and reads them back by session, run and tool call', async () => {
    const { audit } = await open();
    for (const id of ['call_1', 'call_2', 'call_3']) await audit.append(entry(id));
    const all = await audit.listAudit();
    expect(all.map((row) => row.auditId)).toEqual([1, 2, 3]);
    expect(all[0]).toEqual({ ...entry('call_1'), auditId: 1 });
    expect((await audit.listAudit({ runId: 'run-1', toolCallId: 'call_2' })).map((row) => row.auditId)).toEqual([2]);
    expect((await audit.listAudit({ sessionId: 'session-1', limit: 2 })).map((row) => row.auditId)).toEqual([1, 2]);
  });
});
