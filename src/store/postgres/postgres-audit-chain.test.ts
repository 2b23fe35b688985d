import { describe } from 'vitest';
import type { UpgradableAuditChainBackend } from '../test-support/audit-chain-contract.js';
import { describeAuditChainContract } from '../test-support/audit-chain-contract.js';
import { postgresMigrations } from './migrations/index.js';
import { openPostgresBackend, type PostgresBackend } from './open-postgres-backend.js';
import { setUpPostgresCluster } from './test-support/postgres-cluster.js';

const cluster = setUpPostgresCluster();

describe.skipIf(cluster.skip)('PostgreSQL', () => {
  describeAuditChainContract('PostgresAuditLog', async ({ auditKey, beforeChain = false }) => {
    const schema = cluster.freshSchema();
    const open = (migrations: typeof postgresMigrations) =>
      openPostgresBackend({
        connectionString: cluster.connectionString,
        schema,
        migrations,
        ...(auditKey === undefined ? {} : { auditKey }),
      });
    // A release before the chain: every migration but the gate's from 20 on.
    let opened: PostgresBackend = await open(
      beforeChain
        ? postgresMigrations.filter((migration) => migration.version < 20 || migration.version >= 30)
        : postgresMigrations,
    );
    const backend: UpgradableAuditChainBackend = {
      get audit() {
        return opened.audit;
      },
      explicitId: 'OVERRIDING SYSTEM VALUE',
      sql: (text) => opened.pool.query(text),
      dropAppendOnlyTriggers: async () => {
        await opened.pool.query('ALTER TABLE audit_log DISABLE TRIGGER audit_log_refuses_update_and_delete');
      },
      dropOriginTriggers: async () => {
        await opened.pool.query('ALTER TABLE audit_chain_origin DISABLE TRIGGER audit_chain_origin_refuses_change');
      },
      migrateToLatest: async () => {
        await opened.close();
        opened = await open(postgresMigrations);
      },
      close: () => opened.close(),
    };
    return backend;
  });
});
