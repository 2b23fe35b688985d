import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { describeAuditChainContract } from '../test-support/audit-chain-contract.js';
import { migrations } from './migrations/index.js';
import { SqliteAuditLog } from './sqlite-audit-log.js';
import { migrate } from './sqlite-store.js';

describeAuditChainContract('SqliteAuditLog', ({ auditKey, beforeChain = false, beforeStoreId = false }) => {
  const database = new Database(':memory:');
  // A release before the chain: every migration but the gate's from 20 on; before store ids: all but 21.
  migrate(
    database,
    beforeChain
      ? migrations.filter((migration) => migration.version < 20 || migration.version >= 30)
      : beforeStoreId
        ? migrations.filter((migration) => migration.version !== 21)
        : migrations,
  );
  const backend = {
    audit: new SqliteAuditLog({ database, auditKey }),
    explicitId: '',
    sql: (text: string) => {
      database.exec(text);
    },
    dropAppendOnlyTriggers: () => {
      database.exec('DROP TRIGGER audit_log_refuses_update; DROP TRIGGER audit_log_refuses_delete');
    },
    openAnotherWriter: () => ({ audit: new SqliteAuditLog({ database, auditKey }), close: () => {} }),
    dropOriginTriggers: () => {
      database.exec(`
        DROP TRIGGER audit_chain_origin_refuses_update; DROP TRIGGER audit_chain_origin_refuses_delete;
        DROP TRIGGER audit_store_refuses_update; DROP TRIGGER audit_store_refuses_delete;
      `);
    },
    migrateToLatest: () => {
      migrate(database, migrations);
      backend.audit = new SqliteAuditLog({ database, auditKey });
    },
    close: () => {
      database.close();
    },
  };
  return backend;
});

describe('SqliteAuditLog hash chain with two connections on one file', () => {
  it('never forks a chain: each writer re-reads the head after the other wrote', () => {
    const directory = mkdtempSync(join(tmpdir(), 'arbiter-audit-chain-'));
    try {
      const path = join(directory, 'arbiter.db');
      const first = new Database(path);
      migrate(first, migrations);
      const second = new Database(path);
      const logs = [new SqliteAuditLog({ database: first }), new SqliteAuditLog({ database: second })];
      for (let index = 0; index < 12; index += 1) {
        (logs[index % 3 === 0 ? 0 : 1] as SqliteAuditLog).append({
          at: Date.now(),
          sessionId: undefined,
          runId: `run-${index % 2}`,
          step: index,
          toolCallId: `call_${index}`,
          tool: 'send_payment',
          sideEffect: 'irreversible',
          argumentsHash: 'hash',
          arguments: { index },
          decision: 'allowed',
          rule: undefined,
          approver: undefined,
          outcome: 'ok',
          durationMs: 1,
          tenantId: index % 2 === 0 ? 'bank' : 'other-bank',
        });
      }
      expect((logs[0] as SqliteAuditLog).verifyChain()).toMatchObject({ ok: true, rows: 12, findings: [] });
      first.close();
      second.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('SqliteAuditLog hash chain and the table’s column order', () => {
  it('still verifies after the log is rebuilt with its columns in another order and a column added in the middle', () => {
    const database = new Database(':memory:');
    migrate(database, migrations);
    const audit = new SqliteAuditLog({ database });
    for (const [index, tenantId] of ['bank', 'other-bank', 'bank'].entries()) {
      audit.append({
        at: Date.now(),
        sessionId: 'session-1',
        runId: 'run-1',
        step: index,
        toolCallId: `call_${index}`,
        tool: 'send_payment',
        sideEffect: 'irreversible',
        argumentsHash: 'hash',
        arguments: { index },
        decision: 'approved',
        rule: 'large_payment',
        approver: 'li.wei',
        outcome: 'ok',
        durationMs: 1.5,
        tenantId,
      });
    }
    const columns = (database.pragma('table_info(audit_log)') as { name: string }[]).map((column) => column.name);
    const reversed = [...columns].reverse();
    const middle = Math.floor(reversed.length / 2);
    database.exec(`
      DROP TRIGGER audit_log_refuses_update; DROP TRIGGER audit_log_refuses_delete;
      CREATE TABLE audit_log_reordered AS SELECT ${reversed.slice(0, middle).join(', ')}, NULL AS added_later,
        ${reversed.slice(middle).join(', ')} FROM audit_log;
      DROP TABLE audit_log;
      ALTER TABLE audit_log_reordered RENAME TO audit_log;
    `);
    expect(audit.verifyChain()).toMatchObject({ ok: true, rows: 3, findings: [] });
    database.close();
  });
});
