import { describe } from 'vitest';
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
import { openPostgresBackend } from './open-postgres-backend.js';
import { setUpPostgresCluster } from './test-support/postgres-cluster.js';

// One throwaway cluster for this file; every test opens a backend on a schema of its own.
const cluster = setUpPostgresCluster();
const postgres = (options: ContractOptions) =>
  openPostgresBackend({ connectionString: cluster.connectionString, schema: cluster.freshSchema(), ...options });

describe.skipIf(cluster.skip)('PostgreSQL backend', () => {
  describeSessionStoreContract('PostgresSessionStore', postgres);
  describeRunJournalContract('PostgresSessionStore.journal', async (options) => {
    const backend = await postgres(options);
    const session = await backend.sessions.create();
    await backend.sessions.beginRun({ sessionId: session.id, runId: 'run-1' });
    return {
      journal: backend.sessions.journal({ sessionId: session.id }),
      runId: 'run-1',
      sessionId: session.id,
      close: backend.close,
    };
  });
  describeApprovalBrokerContract('PostgresApprovalBroker', postgres);
  describeIdempotencyStoreContract('PostgresIdempotencyStore', postgres);
  describeAuditLogContract('PostgresAuditLog', postgres);
  describeHistoryReservationContract('PostgresAuditLog', postgres);
  describeEventLogContract('PostgresEventLog', postgres);
  describeRuntimeStoreContract('PostgresRuntimeStore', postgres);
  describeRetentionContract('PostgreSQL backend', async (options) => {
    const backend = await postgres(options);
    return {
      ...backend,
      sql: async (statement: string) => void (await backend.pool.query(statement)),
      count: async (table: string) =>
        Number((await backend.pool.query<{ count: string }>(`SELECT count(*) AS count FROM ${table}`)).rows[0]?.count),
    };
  });
});
