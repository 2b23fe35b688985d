/**
 * Three real `arbiter serve --store postgres://…` processes on one
 * throwaway cluster, the shop's tools on one shared data directory. One
 * customer sends the same refund request 50 times at once, spread
 * round-robin over the three nodes (50 sessions, one message each); the
 * scripted model asks every time for the same refund: 10.00 yuan on order
 * SO20260902. Exactly one refund may be made; the other 49 calls are
 * audited as replays of it (or refusals while it was in flight), never as
 * executions.
 *
 * Why 10.00 yuan: it is under the shop's 50-yuan approval line, so every call
 * is auto-approved and nothing but the idempotency key (`refund:ORDER:AMOUNT`,
 * claimed in PostgreSQL by whichever node gets there first) stands between 50
 * concurrent calls and 50 refunds. The cumulative daily rule
 * (`refund_daily_auto_limit`) does not step in either: it leaves out calls with
 * the same order and amount (a replay moves no money), so it never asks for
 * approval here. And the order (358.00 yuan, 79.00 refunded) could take 27 such
 * refunds, so the order's own refundable amount does not stop a second one:
 * "exactly one refund" is the idempotency key's doing alone.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { setUpPostgresCluster } from '../../src/store/postgres/test-support/postgres-cluster.js';
import { createDatabase, followRunsToEnd, type Node, NodePool, refundStep, request } from './cluster-nodes.js';

const cluster = setUpPostgresCluster();
const directory = mkdtempSync(join(tmpdir(), 'arbiter-concurrent-refunds-'));
const pool = new NodePool(directory);
afterAll(async () => {
  await pool.stopAll();
  rmSync(directory, { recursive: true, force: true });
}, 60_000);

const requests = 50;
const orderId = 'SO20260902';
const amountCents = 1000;

describe.skipIf(cluster.skip)('50 concurrent identical refunds over three nodes', () => {
  it('makes exactly one refund; the other calls are replays or refusals in the audit', async () => {
    const script = join(directory, 'refund-script.json');
    writeFileSync(
      script,
      JSON.stringify({
        name: 'refund-once',
        onUnclearError: 'give_up',
        giveUp: 'Sorry, I could not do that.',
        onRefusal: 'Sorry: {reason}',
        turns: [
          {
            steps: [
              refundStep(orderId, amountCents),
              { say: 'Refund {{apply_refund.refund_no}} of 10.00 yuan is {{apply_refund.status}}.' },
            ],
          },
        ],
      }),
    );
    const storeUrl = await createDatabase(cluster.connectionString, 'concurrent_refunds');
    const flags = ['--script', script, '--sessions-per-minute', '200', '--messages-per-minute', '200'];
    flags.push('--max-streams', '200');
    const nodes = await Promise.all(
      ['refund-a', 'refund-b', 'refund-c'].map((name) =>
        pool.start(name, storeUrl, flags, { ARBITER_SCRIPTED_LATENCY_MS: '0' }),
      ),
    );
    // The shop database exists once a node has opened it.
    const refundsBefore = pool.countRefunds(orderId);

    // Sessions first, then all 50 messages at once, so the 50 runs race for the key.
    const sessions = await Promise.all(
      Array.from({ length: requests }, async (_, index) => {
        const node = nodes[index % nodes.length] as Node;
        const created = await request(node, '/v1/sessions', { method: 'POST' });
        expect(created.status).toBe(201);
        return { node, sessionId: created.body.id as string };
      }),
    );
    const runs = await Promise.all(
      sessions.map(async ({ node, sessionId }) => {
        const sent = await request(node, `/v1/sessions/${sessionId}/messages`, {
          method: 'POST',
          body: { content: 'The mug arrived chipped, please refund 10.00 yuan on SO20260902.' },
        });
        expect(sent.status).toBe(202);
        return { node, runId: sent.body.runId as string };
      }),
    );
    const stopReasons = await followRunsToEnd(pool, runs);

    const database = new pg.Client({ connectionString: storeUrl });
    await database.connect();
    const { rows } = await database.query<{
      decision: string;
      outcome: string;
      replay_of_run_id: string | null;
      run_id: string;
    }>(
      `SELECT decision, outcome, replay_of_run_id, run_id FROM audit_log WHERE tool = 'apply_refund' ORDER BY audit_id`,
    );
    const perRun = new Map<string, number>();
    for (const row of rows) perRun.set(row.run_id, (perRun.get(row.run_id) ?? 0) + 1);
    const twice = [...perRun].filter(([, count]) => count > 1);
    if (twice.length > 0) {
      const events = await database
        .query(`SELECT run_id, seq, type FROM run_events WHERE run_id = ANY($1) ORDER BY run_id, seq`, [
          twice.map(([runId]) => runId),
        ])
        .catch((error: unknown) => ({ rows: [String(error)] }));
      console.info(
        `runs audited more than once: ${JSON.stringify(twice)} ${JSON.stringify(events.rows).slice(0, 3000)}`,
      );
      for (const node of nodes) {
        const lines = node
          .output()
          .split('\n')
          .filter((line) => twice.some(([runId]) => line.includes(runId)));
        console.info(`${node.name}: ${lines.join('\n')}`);
      }
    }
    await database.end();
    const outcomes: Record<string, number> = {};
    for (const row of rows)
      outcomes[`${row.decision}/${row.outcome}`] = (outcomes[`${row.decision}/${row.outcome}`] ?? 0) + 1;
    const executed = rows.filter((row) => row.replay_of_run_id === null && !row.outcome.startsWith('replayed:'));
    const notExecuted = rows.filter(
      (row) =>
        row.replay_of_run_id !== null &&
        (row.outcome.startsWith('replayed:') ||
          row.outcome === 'outcome_unknown' ||
          row.outcome === 'claimed_by_another_user'),
    );
    const refunds = pool.countRefunds(orderId) - refundsBefore;
    console.info(
      `\nconcurrent refunds: ${requests} identical requests over ${nodes.length} nodes → refunds +${refunds}; ` +
        `runs ended ${JSON.stringify(stopReasons)}; audit rows ${rows.length} ${JSON.stringify(outcomes)}\n`,
    );

    expect(refunds).toBe(1);
    expect(stopReasons).toEqual({ completed: requests });
    expect(rows).toHaveLength(requests);
    expect(executed).toHaveLength(1);
    expect(executed[0]?.outcome).toBe('ok');
    expect(notExecuted).toHaveLength(requests - 1);
  }, 180_000);
});
