import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../gate/audit-log.js';
import { migrations } from '../store/sqlite/migrations/index.js';
import { SqliteAuditLog } from '../store/sqlite/sqlite-audit-log.js';
import { migrate } from '../store/sqlite/sqlite-store.js';
import { tenantChainStatus } from './desk-audit.js';

const entry = (toolCallId: string, tenantId: string | undefined): AuditEntry => ({
  at: Date.now(),
  sessionId: undefined,
  runId: 'run-1',
  step: 1,
  toolCallId,
  tool: 'apply_refund',
  sideEffect: 'irreversible',
  argumentsHash: 'hash',
  arguments: {},
  decision: 'approved',
  rule: undefined,
  approver: 'S9001',
  outcome: 'ok',
  durationMs: 1,
  tenantId,
});

describe('tenantChainStatus', () => {
  it("tells a tenant how many of his own rows were checked, never the whole log's count", () => {
    const database = new Database(':memory:');
    try {
      migrate(database, migrations);
      const audit = new SqliteAuditLog({ database });
      audit.append(entry('call_1', 'shop'));
      for (let index = 0; index < 40; index += 1) audit.append(entry(`big_${index}`, 'big-bank'));
      audit.append(entry('call_2', 'shop'));
      audit.append(entry('call_3', undefined));
      const report = audit.verifyChain();
      expect(report.rows).toBe(43);
      expect(tenantChainStatus({ report, tenantId: 'shop' })).toEqual({
        status: 'verified',
        rowsChecked: 2,
        breaks: [],
      });
      expect(tenantChainStatus({ report, tenantId: 'big-bank' }).rowsChecked).toBe(40);
      expect(tenantChainStatus({ report, tenantId: 'new-tenant' }).rowsChecked).toBe(0);
      expect(tenantChainStatus({ report, tenantId: undefined }).rowsChecked).toBe(1);
    } finally {
      database.close();
    }
  });
});
