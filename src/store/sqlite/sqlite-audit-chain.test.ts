import Database from 'better-sqlite3';
import { describeAuditChainContract } from '../test-support/audit-chain-contract.js';
import { migrations } from './migrations/index.js';
import { SqliteAuditLog } from './sqlite-audit-log.js';
import { migrate } from './sqlite-store.js';

describeAuditChainContract('SqliteAuditLog', ({ auditKey }) => {
  const database = new Database(':memory:');
  migrate(database, migrations);
  return {
    audit: new SqliteAuditLog({ database, auditKey }),
    sql: (text) => {
      database.exec(text);
    },
    dropAppendOnlyTriggers: () => {
      database.exec('DROP TRIGGER audit_log_refuses_update; DROP TRIGGER audit_log_refuses_delete');
    },
    close: () => {
      database.close();
    },
  };
});
