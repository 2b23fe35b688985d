import { describe } from 'vitest';
import { describeAuditChainContract } from '../test-support/audit-chain-contract.js';
import { openPostgresBackend } from './open-postgres-backend.js';
import { setUpPostgresCluster } from './test-support/postgres-cluster.js';

const cluster = setUpPostgresCluster();

describe.skipIf(cluster.skip)('PostgreSQL', () => {
  describeAuditChainContract('PostgresAuditLog', async ({ auditKey }) => {
    const backend = await openPostgresBackend({
      connectionString: cluster.connectionString,
      schema: cluster.freshSchema(),
      ...(auditKey === undefined ? {} : { auditKey }),
    });
    return {
      audit: backend.audit,
      sql: (text) => backend.pool.query(text),
      dropAppendOnlyTriggers: async () => {
        await backend.pool.query('ALTER TABLE audit_log DISABLE TRIGGER audit_log_refuses_update_and_delete');
      },
      close: () => backend.close(),
    };
  });
});
