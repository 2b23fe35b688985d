import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../gate/audit-log.js';
import type { UpgradableAuditChainBackend } from '../test-support/audit-chain-contract.js';
import { describeAuditChainContract } from '../test-support/audit-chain-contract.js';
import { postgresMigrations } from './migrations/index.js';
import { openPostgresBackend, type PostgresBackend } from './open-postgres-backend.js';
import { setUpPostgresCluster } from './test-support/postgres-cluster.js';

const cluster = setUpPostgresCluster();

describe.skipIf(cluster.skip)('PostgreSQL', () => {
  describeAuditChainContract('PostgresAuditLog', async ({ auditKey, beforeChain = false, beforeStoreId = false }) => {
    const schema = cluster.freshSchema();
    const open = (migrations: typeof postgresMigrations) =>
      openPostgresBackend({
        connectionString: cluster.connectionString,
        schema,
        migrations,
        ...(auditKey === undefined ? {} : { auditKey }),
      });
    // A release before the chain: every migration but the gate's from 20 on; before store ids: all but 21.
    let opened: PostgresBackend = await open(
      beforeChain
        ? postgresMigrations.filter((migration) => migration.version < 20 || migration.version >= 30)
        : beforeStoreId
          ? postgresMigrations.filter((migration) => migration.version !== 21)
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
      openAnotherWriter: async () => {
        const node = await open(postgresMigrations);
        return { audit: node.audit, close: () => node.close() };
      },
      dropOriginTriggers: async () => {
        await opened.pool.query('ALTER TABLE audit_chain_origin DISABLE TRIGGER audit_chain_origin_refuses_change');
        await opened.pool.query('ALTER TABLE audit_store DISABLE TRIGGER audit_store_refuses_change');
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

describe.skipIf(cluster.skip)('PostgresAuditLog appends of one tenant on two nodes', () => {
  const entry = (toolCallId: string): AuditEntry => ({
    at: Date.now(),
    sessionId: undefined,
    runId: 'run-1',
    step: 1,
    toolCallId,
    tool: 'send_payment',
    sideEffect: 'irreversible',
    argumentsHash: 'hash',
    arguments: {},
    decision: 'allowed',
    rule: undefined,
    approver: undefined,
    outcome: 'ok',
    durationMs: 1,
    tenantId: 'bank',
  });

  it('never wait for each other: an append goes through while another session holds the tenant’s old chain lock and an open transaction on the log', async () => {
    const schema = cluster.freshSchema();
    const nodes = await Promise.all(
      [0, 1].map(() => openPostgresBackend({ connectionString: cluster.connectionString, schema })),
    );
    const [first, second] = nodes as [PostgresBackend, PostgresBackend];
    const holder = await first.pool.connect();
    try {
      await first.audit.append(entry('call_0'));
      // What an append of the first format held until COMMIT on another node: the tenant's advisory lock.
      await holder.query('BEGIN');
      await holder.query("SELECT pg_advisory_xact_lock(hashtext('bank'))");
      await holder.query(
        `INSERT INTO audit_log (at, run_id, step, tool_call_id, tool, side_effect, arguments_hash, arguments, decision,
           outcome, duration_ms, tenant_id) VALUES (1, 'run-x', 1, 'uncommitted', 'send_payment', 'irreversible', 'h',
           '{}', 'allowed', 'ok', 0, 'bank')`,
      );
      const appended = Promise.all([second.audit.append(entry('call_1')), first.audit.append(entry('call_2'))]);
      const waited = await Promise.race([
        appended.then(() => false),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 3_000)),
      ]);
      expect(waited).toBe(false);
      await holder.query('ROLLBACK');
      const report = await first.audit.verifyChain();
      expect(report).toMatchObject({ ok: true, rows: 3 });
      expect(report.chains.map((chain) => chain.seq).sort()).toEqual([1, 2]);
    } finally {
      holder.release();
      for (const node of nodes) await node.close();
    }
  });

  it('starts a new chain after an INSERT that failed, so the rows that did commit still verify', async () => {
    const backend = await openPostgresBackend({
      connectionString: cluster.connectionString,
      schema: cluster.freshSchema(),
    });
    try {
      await backend.audit.append(entry('call_1'));
      await expect(backend.audit.append({ ...entry('call_2'), sideEffect: 'sideways' as 'read' })).rejects.toThrow();
      await backend.audit.append(entry('call_3'));
      const report = await backend.audit.verifyChain();
      expect(report).toMatchObject({ ok: true, rows: 2 });
      expect(report.chains.map((chain) => chain.seq)).toEqual([1, 1]);
    } finally {
      await backend.close();
    }
  });
});
