import { afterEach, describe, expect, it } from 'vitest';
import type { ToolOutcome } from '../../core/tool-outcome.js';
import { openPostgresBackend, type PostgresBackend } from './open-postgres-backend.js';
import { setUpPostgresCluster } from './test-support/postgres-cluster.js';

// What every idempotency store does is in the IdempotencyStore contract (postgres-backend.contract.test.ts).
const cluster = setUpPostgresCluster();
const refund: ToolOutcome = { ok: true, data: { refund_id: 'RF1' } };

describe.skipIf(cluster.skip)('PostgresIdempotencyStore', () => {
  const opened: PostgresBackend[] = [];
  afterEach(async () => {
    for (const backend of opened.splice(0)) await backend.close();
  });

  it('lets exactly one of many concurrent claims of one key, from two pools, execute', async () => {
    const schema = cluster.freshSchema();
    const nodes = await Promise.all(
      [1, 2].map(() => openPostgresBackend({ connectionString: cluster.connectionString, schema })),
    );
    opened.push(...nodes);
    for (let round = 0; round < 10; round += 1) {
      const key = `refund:SO2026090${round}:2000`;
      // The winner completes as soon as it holds the key; a claim of its own pool waits for that outcome.
      const claims = await Promise.all(
        Array.from({ length: 20 }, async (_, index) => {
          const claim = await (nodes[index % 2] as PostgresBackend).idempotency.claim({
            key,
            claimant: { tenantId: 'shop', userId: 'C1001' },
            runId: `run-${index}`,
            toolCallId: `call_${index}`,
            tool: 'apply_refund',
          });
          if (claim.status === 'claimed') await claim.complete(refund);
          return claim;
        }),
      );
      const statuses = claims.map((claim) => claim.status);
      expect(statuses.filter((status) => status === 'claimed')).toHaveLength(1);
      expect(statuses.filter((status) => status !== 'completed' && status !== 'outcome_unknown')).toEqual(['claimed']);
      for (const claim of claims) if (claim.status === 'completed') expect(claim.outcome).toEqual(refund);
      const rows = await nodes[0]?.pool.query('SELECT status FROM idempotency_claims WHERE key = $1', [key]);
      expect(rows?.rows).toEqual([{ status: 'completed' }]);
    }
  });

  it('keeps the keys of two schemas on one cluster apart', async () => {
    const [first, second] = await Promise.all(
      [1, 2].map(() =>
        openPostgresBackend({ connectionString: cluster.connectionString, schema: cluster.freshSchema() }),
      ),
    );
    opened.push(first as PostgresBackend, second as PostgresBackend);
    const request = {
      key: 'refund:SO20260901:2000',
      claimant: { tenantId: 'shop', userId: 'C1001' },
      runId: 'run-1',
      toolCallId: 'call_1',
      tool: 'apply_refund',
    };
    const claim = await first?.idempotency.claim(request);
    expect(claim?.status).toBe('claimed');
    expect((await second?.idempotency.claim(request))?.status).toBe('claimed');
  });
});
