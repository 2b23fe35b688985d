import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../gate/audit-log.js';
import { SqliteAuditLog } from '../sqlite-audit-log.js';
import { migrate } from '../sqlite-store.js';
import { migrations } from './index.js';

const entry = (toolCallId: string, overrides: Partial<AuditEntry> = {}): AuditEntry => ({
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
  ...overrides,
});

/** A database migrated to version 14 (the audit log as it was), with three rows appended. */
function databaseAtVersion14() {
  const database = new Database(':memory:');
  migrate(
    database,
    migrations.filter((migration) => migration.version <= 14),
  );
  const audit = new SqliteAuditLog({ database });
  audit.append(entry('call_1'));
  audit.append(entry('call_2', { decision: 'allowed', rule: undefined, approver: undefined, sessionId: undefined }));
  audit.append(entry('call_3', { outcome: 'replayed:ok', replayOf: { runId: 'run-0', toolCallId: 'call_0' } }));
  return { database, audit, before: audit.listAudit() };
}

describe('gate migration 15 (audit_log_lean_append)', () => {
  it('keeps every row and its audit_id, and new rows still follow the last one', () => {
    const { database, audit, before } = databaseAtVersion14();
    expect(before.map((row) => row.auditId)).toEqual([1, 2, 3]);
    migrate(database, migrations);
    expect(audit.listAudit()).toEqual(before);
    audit.append(entry('call_4'));
    expect(audit.listAudit().map((row) => row.auditId)).toEqual([1, 2, 3, 4]);
    expect(audit.listAudit({ runId: 'run-1', toolCallId: 'call_3' })).toEqual([before[2]]);
    expect(audit.findCalls({ tool: 'send_payment', runId: 'run-1' }).map((call) => call.toolCallId)).toEqual([
      'call_1',
      'call_2',
      'call_4',
    ]);
    const sql = (database.prepare("SELECT sql FROM sqlite_master WHERE name = 'audit_log'").get() as { sql: string })
      .sql;
    expect(sql).not.toMatch(/AUTOINCREMENT/i);
    database.close();
  });

  it('still refuses DELETE and UPDATE after the rebuild', () => {
    const { database } = databaseAtVersion14();
    migrate(database, migrations);
    expect(() => database.prepare('DELETE FROM audit_log').run()).toThrow(/append-only: rows cannot be deleted/);
    expect(() => database.prepare("UPDATE audit_log SET outcome = 'ok'").run()).toThrow(
      /append-only: rows cannot be updated/,
    );
    expect(() => database.prepare('DELETE FROM audit_log WHERE audit_id = 3').run()).toThrow(/append-only/);
    expect((database.prepare('SELECT COUNT(*) AS count FROM audit_log').get() as { count: number }).count).toBe(3);
    database.close();
  });

  it('serves every filtered query of SqliteAuditLog through an index', () => {
    const database = new Database(':memory:');
    migrate(database, migrations);
    const prepared: string[] = [];
    const prepare = database.prepare.bind(database);
    database.prepare = ((source: string) => {
      prepared.push(source);
      return prepare(source);
    }) as typeof database.prepare;
    const audit = new SqliteAuditLog({ database });
    audit.listAudit({ sessionId: 'session-1' });
    audit.listAudit({ runId: 'run-1' });
    audit.listAudit({ runId: 'run-1', toolCallId: 'call_1' });
    audit.listAudit({ sessionId: 'session-1', limit: 10 });
    audit.findCalls({ tool: 'send_payment' });
    audit.findCalls({ tool: 'send_payment', runId: 'run-1' });
    audit.findCalls({ tool: 'send_payment', sessionId: 'session-1' });
    audit.findCalls({ tool: 'send_payment', tenantId: 'tenant-1', userId: 'user-1' });
    audit.findCalls({ tool: 'send_payment', tenantId: 'tenant-1', userId: 'user-1', since: 500 });
    audit.findCalls({ tool: 'send_payment', runId: 'run-1', tenantId: 'tenant-1', userId: 'user-1', since: 500 });
    const selects = prepared.filter((source) => source.trimStart().startsWith('SELECT'));
    expect(selects).toHaveLength(10);
    const plans = selects.map((source) => ({
      source,
      plan: (
        prepare(`EXPLAIN QUERY PLAN ${source}`).all(...(source.match(/\?/g) ?? []).map(() => null)) as {
          detail: string;
        }[]
      ).map((row) => row.detail),
    }));
    for (const { source, plan } of plans) {
      const scans = plan.filter((detail) => /^SCAN audit_log\b/.test(detail) && !/USING/.test(detail));
      // findCalls by tool alone has no run, session or principal to narrow it: it reads the log in order.
      if (/^SELECT \* FROM audit_log WHERE tool = \? AND outcome = 'ok' AND decision IN \([?, ]+\) ORDER/.test(source))
        continue;
      expect({ source, scans }).toEqual({ source, scans: [] });
    }
    database.close();
  });
});

describe('gate migration 16 (audit_retention)', () => {
  const day = 86_400_000;

  it('lets a DELETE through only below the cutoff audit_retention holds, and never a row younger than 30 days', () => {
    const database = new Database(':memory:');
    migrate(database, migrations);
    const audit = new SqliteAuditLog({ database });
    const now = Date.now();
    audit.append(entry('call_old', { at: now - 500 * day }));
    audit.append(entry('call_recent', { at: now - 10 * day }));
    expect(() => database.prepare('DELETE FROM audit_log').run()).toThrow(/append-only: rows cannot be deleted/);
    database.prepare('INSERT INTO audit_retention (singleton, purge_before) VALUES (1, ?)').run(now + day);
    expect(() => database.prepare('DELETE FROM audit_log').run()).toThrow(
      'audit_log keeps every row younger than 30 days',
    );
    expect(database.prepare('DELETE FROM audit_log WHERE at < ?').run(now - 400 * day).changes).toBe(1);
    expect(() => database.prepare("UPDATE audit_log SET outcome = 'ok'").run()).toThrow(/rows cannot be updated/);
    expect(() => database.prepare('INSERT INTO audit_retention (singleton, purge_before) VALUES (2, 0)').run()).toThrow(
      /CHECK constraint failed/,
    );
    expect(audit.listAudit().map((row) => row.toolCallId)).toEqual(['call_recent']);
    database.close();
  });
});

describe('gate migration 17 (audit_by_session_partial)', () => {
  it('keeps the rows without a session out of audit_by_session, and still finds a session’s rows through it', () => {
    const database = new Database(':memory:');
    migrate(
      database,
      migrations.filter((migration) => migration.version <= 16),
    );
    const audit = new SqliteAuditLog({ database });
    audit.append(entry('call_1'));
    audit.append(entry('call_2', { sessionId: undefined }));
    migrate(database, migrations);
    audit.append(entry('call_3', { sessionId: undefined }));
    audit.append(entry('call_4'));
    const indexed = database
      .prepare('SELECT session_id FROM audit_log INDEXED BY audit_by_session WHERE session_id IS NOT NULL')
      .all();
    expect(indexed).toEqual([{ session_id: 'session-1' }, { session_id: 'session-1' }]);
    expect(audit.listAudit({ sessionId: 'session-1' }).map((row) => row.toolCallId)).toEqual(['call_1', 'call_4']);
    expect(audit.listAudit().map((row) => row.toolCallId)).toEqual(['call_1', 'call_2', 'call_3', 'call_4']);
    const plan = database
      .prepare('EXPLAIN QUERY PLAN SELECT * FROM audit_log WHERE session_id = ? ORDER BY audit_id')
      .all('session-1') as { detail: string }[];
    expect(plan.map((step) => step.detail).join('\n')).toMatch(/USING INDEX audit_by_session/);
    database.close();
  });
});

describe('gate migration 18 (audit_log_checks_without_in_lists)', () => {
  const day = 86_400_000;

  it('keeps every row and audit_id, and still refuses a bad tier or decision, an UPDATE and an early DELETE', () => {
    const database = new Database(':memory:');
    migrate(
      database,
      migrations.filter((migration) => migration.version <= 17),
    );
    const audit = new SqliteAuditLog({ database });
    const now = Date.now();
    audit.append(entry('call_old', { at: now - 500 * day }));
    audit.append(entry('call_read', { at: now, sideEffect: 'read', decision: 'allowed', sessionId: undefined }));
    audit.flush();
    const before = audit.listAudit();
    migrate(database, migrations);
    expect(audit.listAudit()).toEqual(before);
    const insert = database.prepare(
      `INSERT INTO audit_log (at, run_id, step, tool_call_id, tool, side_effect, arguments_hash, arguments, decision,
         outcome, duration_ms) VALUES (${now}, 'run-1', 1, 'call_x', 'tool', ?, 'hash', '{}', ?, 'ok', 0)`,
    );
    expect(() => insert.run('reed', 'allowed')).toThrow(/CHECK constraint failed/);
    expect(() => insert.run('read', 'allowed ')).toThrow(/CHECK constraint failed/);
    for (const sideEffect of ['read', 'reversible', 'irreversible']) {
      for (const decision of ['allowed', 'auto_approved', 'approved', 'rejected', 'denied']) {
        expect(insert.run(sideEffect, decision).changes).toBe(1);
      }
    }
    expect(() => database.prepare("UPDATE audit_log SET outcome = 'ok'").run()).toThrow(/rows cannot be updated/);
    expect(() => database.prepare('DELETE FROM audit_log').run()).toThrow(/append-only: rows cannot be deleted/);
    expect(audit.purge({ olderThanDays: 400, by: 'retention-job' }).deleted).toBe(1);
    expect(audit.listAudit().map((row) => row.toolCallId)).not.toContain('call_old');
    expect(audit.listAudit().at(-1)?.tool).toMatch(/purge/);
    const plan = (sql: string) =>
      (database.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('x') as { detail: string }[])
        .map((step) => step.detail)
        .join();
    expect(plan('SELECT * FROM audit_log WHERE session_id = ? ORDER BY audit_id')).toMatch(/audit_by_session/);
    expect(plan('SELECT * FROM audit_log WHERE run_id = ? ORDER BY audit_id')).toMatch(/audit_by_run_tool_call/);
    expect(plan("SELECT * FROM audit_log WHERE tenant_id IS ? AND user_id IS NULL AND tool = 'a'")).toMatch(
      /audit_by_principal_tool/,
    );
    database.close();
  });
});
