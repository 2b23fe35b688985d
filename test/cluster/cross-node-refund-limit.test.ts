/**
 * The shop's cumulative rule ("automatic refunds stay under 50.00 yuan a
 * customer a day", `refund_daily_auto_limit`) across two real
 * `arbiter serve --store postgres://…` processes on one throwaway cluster.
 * One customer asks, at the same moment, for four refunds of about 30.00
 * yuan (each under the 50-yuan line on its own; different amounts, so none
 * replays another), two through each node. Any two together exceed the
 * daily limit, so exactly one may be automatic; the other three wait for
 * a member of staff.
 *
 * To make "at the same moment" certain rather than lucky, the test holds
 * an EXCLUSIVE lock on `audit_log` (reads go on, inserts wait) while the
 * four runs decide: a refund that ran cannot be audited yet, so a node
 * that reads the history sees nothing of it. Before the history reservation
 * lived in the store, each node's lock was its own: each node let one 30.00
 * refund through, 60.00 yuan automatically.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { setUpPostgresCluster } from '../../src/store/postgres/test-support/postgres-cluster.js';
import { createDatabase, followRunsToEnd, type Node, NodePool, refundStep, request } from './cluster-nodes.js';

const cluster = setUpPostgresCluster();
const directory = mkdtempSync(join(tmpdir(), 'arbiter-cross-node-limit-'));
const pool = new NodePool(directory);
afterAll(async () => {
  await pool.stopAll();
  rmSync(directory, { recursive: true, force: true });
}, 60_000);

const orderId = 'SO20260902';
const amounts = [3000, 3001, 3002, 3003];

describe.skipIf(cluster.skip)('the daily automatic refund limit over two nodes', () => {
  it('lets exactly one of four parallel 30-yuan refunds through automatically; three wait for approval', async () => {
    const script = join(directory, 'refund-script.json');
    writeFileSync(
      script,
      JSON.stringify({
        name: 'refund-amounts',
        onUnclearError: 'give_up',
        giveUp: 'Sorry, I could not do that.',
        onRefusal: 'Sorry: {reason}',
        turns: amounts.map((amount) => ({
          when: `refund ${amount} cents`,
          steps: [
            refundStep(orderId, amount),
            { say: 'Refund {{apply_refund.refund_no}} is {{apply_refund.status}}.' },
          ],
        })),
      }),
    );
    const storeUrl = await createDatabase(cluster.connectionString, 'cross_node_refund_limit');
    const flags = ['--script', script, '--sessions-per-minute', '200', '--messages-per-minute', '200'];
    const nodes = await Promise.all(
      ['limit-a', 'limit-b'].map((name) => pool.start(name, storeUrl, flags, { ARBITER_SCRIPTED_LATENCY_MS: '0' })),
    );
    const refundsBefore = pool.countRefunds(orderId);

    const sessions = await Promise.all(
      amounts.map(async (amount, index) => {
        const node = nodes[index % nodes.length] as Node;
        const created = await request(node, '/v1/sessions', { method: 'POST' });
        expect(created.status).toBe(201);
        return { node, amount, sessionId: created.body.id as string };
      }),
    );
    // While the audit cannot be written, a refund that ran is invisible to the history: without a reservation in the
    // store, each node's first run sees an empty day and refunds automatically.
    const blocker = new pg.Client({ connectionString: storeUrl });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE audit_log IN EXCLUSIVE MODE');
    // All four messages at once: the runs race for the same day's headroom.
    const runs = await Promise.all(
      sessions.map(async ({ node, amount, sessionId }) => {
        const sent = await request(node, `/v1/sessions/${sessionId}/messages`, {
          method: 'POST',
          body: { content: `Please refund ${amount} cents on ${orderId}.` },
        });
        expect(sent.status).toBe(202);
        return { node, runId: sent.body.runId as string };
      }),
    );
    const started = Date.now();
    while (pool.countRefunds(orderId) === refundsBefore && Date.now() - started < 30_000)
      await new Promise((resolve) => setTimeout(resolve, 50));
    // Long enough for the other node's run to decide too (it waits for the reservation, or refunds without one).
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const refundsWhileBlocked = pool.countRefunds(orderId) - refundsBefore;
    await blocker.query('COMMIT');
    await blocker.end();
    const stopReasons = await followRunsToEnd(pool, runs);

    const database = new pg.Client({ connectionString: storeUrl });
    await database.connect();
    const audited = await database.query<{ decision: string; outcome: string }>(
      `SELECT decision, outcome FROM audit_log WHERE tool = 'apply_refund' ORDER BY audit_id`,
    );
    const pending = await database.query<{ rule: string }>(
      `SELECT rule FROM approvals WHERE tool = 'apply_refund' AND status = 'pending'`,
    );
    await database.end();
    const refunds = pool.countRefunds(orderId) - refundsBefore;
    console.info(
      `\ncross-node refund limit: ${amounts.length} parallel refunds over ${nodes.length} nodes → refunds +${refunds} (+${refundsWhileBlocked} while the audit was held); ` +
        `runs ended ${JSON.stringify(stopReasons)}; audit ${JSON.stringify(audited.rows)}; pending approvals ${pending.rows.length}\n`,
    );

    expect(refundsWhileBlocked).toBe(1);
    expect(refunds).toBe(1);
    expect(audited.rows).toEqual([{ decision: 'auto_approved', outcome: 'ok' }]);
    expect(stopReasons).toEqual({ completed: 1, awaiting_approval: 3 });
    expect(pending.rows.map((row) => row.rule)).toEqual([
      'refund_daily_auto_limit',
      'refund_daily_auto_limit',
      'refund_daily_auto_limit',
    ]);
  }, 180_000);
});
