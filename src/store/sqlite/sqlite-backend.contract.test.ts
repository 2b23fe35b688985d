import { describeApprovalBrokerContract } from '../test-support/approval-broker-contract.js';
import { describeAuditLogContract } from '../test-support/audit-log-contract.js';
import type { ContractOptions } from '../test-support/contract-backend.js';
import { describeEventLogContract } from '../test-support/event-log-contract.js';
import { describeHistoryReservationContract } from '../test-support/history-reservation-contract.js';
import { describeIdempotencyStoreContract } from '../test-support/idempotency-store-contract.js';
import { describeRetentionContract } from '../test-support/retention-contract.js';
import { describeRunJournalContract } from '../test-support/run-journal-contract.js';
import { describeRuntimeStoreContract } from '../test-support/runtime-store-contract.js';
import { describeSessionStoreContract } from '../test-support/session-store-contract.js';
import { openSqliteBackend } from './open-sqlite-backend.js';

const sqlite = (options: ContractOptions) => openSqliteBackend({ path: ':memory:', ...options });

describeSessionStoreContract('SqliteSessionStore', sqlite);
describeRunJournalContract('SqliteSessionStore.journal', async (options) => {
  const backend = sqlite(options);
  const session = await backend.sessions.create();
  await backend.sessions.beginRun({ sessionId: session.id, runId: 'run-1' });
  return {
    journal: backend.sessions.journal({ sessionId: session.id }),
    runId: 'run-1',
    sessionId: session.id,
    close: backend.close,
  };
});
describeApprovalBrokerContract('SqliteApprovalBroker', sqlite);
describeIdempotencyStoreContract('SqliteIdempotencyStore', sqlite);
describeAuditLogContract('SqliteAuditLog', sqlite);
describeHistoryReservationContract('SqliteAuditLog', sqlite);
describeEventLogContract('SqliteEventLog', sqlite);
describeRuntimeStoreContract('SqliteStore', sqlite);
describeRetentionContract('SQLite backend', (options) => {
  const backend = sqlite(options);
  return {
    ...backend,
    sql: async (statement: string) => void backend.database.prepare(statement).run(),
    count: async (table: string) =>
      (backend.database.prepare(`SELECT count(*) AS count FROM ${table}`).get() as { count: number }).count,
  };
});
