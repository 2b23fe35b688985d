/**
 * What production does to a cluster, done to three real `arbiter serve
 * --store postgres://…` processes on one throwaway PostgreSQL cluster:
 *
 * - the database restarts (`pg_ctl restart -m fast`, three times) while runs
 *   execute and SSE readers follow them on other nodes: every node must stay
 *   alive, every run must end, and every node must replay every run's
 *   events from the table with no gap;
 * - a node is killed (SIGKILL) after the session has left its run and before
 *   the run's end is committed (found by polling the database): the run is
 *   settled as what it was, with its `run:end` written, not `aborted`;
 * - a node is stopped for a deploy (SIGTERM) mid-run: its run stops at a
 *   committed step, its lease is let go, another node continues it, and the
 *   reader's stream just goes on: one refund, seqs without a gap.
 *
 * The scripted model takes 150 ms a turn (ARBITER_SCRIPTED_LATENCY_MS), so a
 * run of six turns is in flight long enough to be hit.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExternalEvent } from '../../src/events/external-event.js';
import { setUpPostgresCluster } from '../../src/store/postgres/test-support/postgres-cluster.js';
import { createDatabase, type Node, NodePool, readEvents, request } from './cluster-nodes.js';

const cluster = setUpPostgresCluster();
const directory = mkdtempSync(join(tmpdir(), 'arbiter-cluster-faults-'));
const pool = new NodePool(directory);
afterAll(async () => {
  await pool.stopAll();
  rmSync(directory, { recursive: true, force: true });
}, 60_000);

const script = join(directory, 'lookups-then-refund.json');
writeFileSync(
  script,
  JSON.stringify({
    name: 'lookups-then-refund',
    onUnclearError: 'give_up',
    giveUp: 'Sorry, I could not do that.',
    onRefusal: 'Sorry: {reason}',
    turns: [
      {
        steps: [
          { call: { name: 'query_order', arguments: { order_id: 'SO20260901' } } },
          { call: { name: 'track_shipment', arguments: { order_id: 'SO20260901' } } },
          { call: { name: 'query_order', arguments: { order_id: 'SO20260902' } } },
          { call: { name: 'track_shipment', arguments: { order_id: 'SO20260902' } } },
          {
            call: {
              name: 'apply_refund',
              arguments: {
                order_id: 'SO20260902',
                amount_cents: 1000,
                reason_category: 'damaged',
                reason: 'The mug arrived chipped.',
              },
            },
          },
          { say: 'Refund {{apply_refund.refund_no}} of 10.00 yuan is {{apply_refund.status}}.' },
        ],
      },
    ],
  }),
);
const flags = ['--script', script, '--sessions-per-minute', '500', '--messages-per-minute', '500'];
const slowModel = { ARBITER_SCRIPTED_LATENCY_MS: '150' };

async function startRun(node: Node): Promise<{ runId: string; sessionId: string }> {
  const created = await request(node, '/v1/sessions', { method: 'POST' });
  expect(created.status).toBe(201);
  const sessionId = created.body.id as string;
  const sent = await request(node, `/v1/sessions/${sessionId}/messages`, {
    method: 'POST',
    body: { content: 'Where are my orders? And please refund 10.00 yuan for the chipped mug in SO20260902.' },
  });
  expect(sent.status).toBe(202);
  return { runId: sent.body.runId as string, sessionId };
}

/** Every event of the run as `node` replays it from 0, until its terminal event (or the stream ends). */
async function replayAll(node: Node, runId: string): Promise<ExternalEvent[]> {
  const events: ExternalEvent[] = [];
  await readEvents(node, runId, 0, (event) => events.push(event));
  return events;
}

async function tableSeqs(storeUrl: string, runId: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: storeUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ seq: string }>('SELECT seq FROM run_events WHERE run_id = $1 ORDER BY seq', [
      runId,
    ]);
    return rows.map((row) => Number(row.seq));
  } finally {
    await client.end();
  }
}

const upTo = (count: number) => Array.from({ length: count }, (_, index) => index + 1);

describe.skipIf(cluster.skip)('a cluster through a database restart, a kill at the last moment and a deploy', () => {
  let storeUrl = '';
  let nodes: Node[] = [];

  it('keeps every node alive through three PostgreSQL restarts with runs and readers in flight; no event is lost', async () => {
    storeUrl = await createDatabase(cluster.connectionString, 'cluster_faults');
    nodes = [];
    // A restart takes about a second; leases of 5 s (production's default is 10 s) outlast it on a loaded machine.
    const restartFlags = [...flags, '--lease-ms', '5000'];
    for (const name of ['fault-a', 'fault-b', 'fault-c']) {
      nodes.push(await pool.start(name, storeUrl, restartFlags, slowModel));
    }
    const followed: Promise<ExternalEvent[]>[] = [];
    const runIds: string[] = [];
    for (let round = 0; round < 3; round += 1) {
      // Two runs per node, each followed on the next node, then the database restarts under them.
      for (const [index, node] of nodes.entries()) {
        for (let run = 0; run < 2; run += 1) {
          const { runId } = await startRun(node);
          runIds.push(runId);
          followed.push(pool.followToEnd(nodes[(index + 1) % nodes.length] as Node, runId, 0));
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 300 + round * 200));
      await cluster.restart();
    }
    const ends = await Promise.all(followed);
    const alive = nodes.map((node) => node.child.exitCode === null && node.child.signalCode === null);
    const stopReasons: Record<string, number> = {};
    for (const events of ends) {
      const last = events.at(-1) as (ExternalEvent & { stopReason?: string }) | undefined;
      const reason = last?.type === 'run:end' ? String(last.stopReason) : String(last?.type);
      stopReasons[reason] = (stopReasons[reason] ?? 0) + 1;
    }
    let gaps = 0;
    for (const runId of runIds) {
      const seqs = await tableSeqs(storeUrl, runId);
      if (seqs.join() !== upTo(seqs.length).join()) gaps += 1;
      for (const node of nodes) {
        const replayed = await replayAll(node, runId);
        expect(replayed.map((event) => event.seq)).toEqual(seqs);
      }
    }
    console.info(
      `\ncluster faults: 3 restarts, ${runIds.length} runs over 3 nodes: alive ${JSON.stringify(alive)}, ` +
        `runs ended ${JSON.stringify(stopReasons)}, runs with a gap in run_events: ${gaps}\n`,
    );
    expect(alive).toEqual([true, true, true]);
    expect(gaps).toBe(0);
    for (const events of ends) {
      expect(events.map((event) => event.seq)).toEqual(upTo(events.length));
      expect(['run:end', 'run:error']).toContain(events.at(-1)?.type);
    }
    // Runs that had not reached the database when it went away are told so; the rest complete.
    expect(stopReasons['completed'] ?? 0).toBeGreaterThan(0);
    // After the restarts the nodes serve as before.
    const after = await startRun(nodes[0] as Node);
    const events = await pool.followToEnd(nodes[1] as Node, after.runId, 0);
    expect(events.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'completed' });
  }, 240_000);

  it('settles a run whose node died after its session left it as what it was, with its run:end', async () => {
    const database = new pg.Client({ connectionString: storeUrl });
    await database.connect();
    let caught: { runId: string; sessionId: string; victim: Node } | undefined;
    // A session's end commits with its run's terminal event; written alone (when that transaction failed), it
    // leaves a moment where the session has left the run and the run's end is not committed. That state, made
    // here: the node is killed once the answer is committed and before the run's end, and the session is then
    // left as a session's end written alone leaves it. The window is short: at most 12 tries.
    for (let attempt = 0; attempt < 12 && caught === undefined; attempt += 1) {
      const node = pool.live()[0] as Node;
      const { runId, sessionId } = await startRun(node);
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        const { rows } = await database.query<{ run_status: string; message: string | null }>(
          `SELECT r.status AS run_status,
                  (SELECT message FROM session_messages m WHERE m.session_id = r.session_id
                    ORDER BY position DESC LIMIT 1) AS message
             FROM server_runs r WHERE r.run_id = $1`,
          [runId],
        );
        const row = rows[0];
        if (row === undefined) continue;
        if (row.run_status !== 'running') break;
        const last =
          row.message === null ? undefined : (JSON.parse(row.message) as { role: string; tool_calls?: unknown[] });
        if (last?.role === 'assistant' && (last.tool_calls?.length ?? 0) === 0) {
          // The answer is committed; the run's end is not: kill its node now.
          node.killed = true;
          node.child.kill('SIGKILL');
          caught = { runId, sessionId, victim: node };
          break;
        }
      }
      if (caught === undefined) await pool.followToEnd(pool.live()[0] as Node, runId, 0);
    }
    if (caught !== undefined) {
      await caught.victim.exited;
      // What the session's end alone writes (`endRun`), had it committed before the node died.
      await database.query(
        "UPDATE sessions SET status = 'idle', active_run_id = NULL WHERE session_id = $1 AND active_run_id = $2",
        [caught.sessionId, caught.runId],
      );
    }
    await database.end();
    expect(caught).toBeDefined();
    if (caught === undefined) return;
    const survivor = pool.live()[0] as Node;
    const events = await pool.followToEnd(survivor, caught.runId, 0);
    const seqs = await tableSeqs(storeUrl, caught.runId);
    const shown = await request(survivor, `/v1/runs/${caught.runId}`);
    console.info(
      `\nkilled ${caught.victim.name} between the session's end and the run's end: ` +
        `run ${String(shown.body.status)}, ${events.length} events replayed, table seqs 1..${seqs.at(-1)}\n`,
    );
    expect(events.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'completed' });
    expect(events.map((event) => event.seq)).toEqual(seqs);
    expect(seqs).toEqual(upTo(seqs.length));
    expect(shown.body).toMatchObject({ status: 'completed' });
    // A reconnect from any point replays the rest.
    const tail: ExternalEvent[] = [];
    await readEvents(survivor, caught.runId, Math.floor(seqs.length / 2), (event) => tail.push(event));
    expect(tail.map((event) => event.seq)).toEqual(seqs.slice(Math.floor(seqs.length / 2)));
  }, 240_000);

  it('hands a run over when its node is stopped for a deploy: another node finishes it, one refund, one stream', async () => {
    // Fresh nodes on a fresh database: the refund of this run is the only one on its order.
    const deployUrl = await createDatabase(cluster.connectionString, 'cluster_deploy');
    const deploy: Node[] = [];
    for (const name of ['deploy-a', 'deploy-b']) deploy.push(await pool.start(name, deployUrl, flags, slowModel));
    const [first, second] = deploy as [Node, Node];
    const refundsBefore = pool.countRefunds('SO20260902');
    const database = new pg.Client({ connectionString: deployUrl });
    await database.connect();
    // A run executing on `first` (the node that accepts a run holds its lease), followed on `second`.
    const { runId } = await startRun(first);
    const events: ExternalEvent[] = [];
    const following = pool.followToEnd(second, runId, 0, (event) => events.push(event));
    // Mid-run: after its second tool call, stop its node as a deploy does.
    const deadline = Date.now() + 20_000;
    while (events.filter((event) => event.type === 'tool:end').length < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const owner = (
      await database.query<{ lease_owner: string }>('SELECT lease_owner FROM server_runs WHERE run_id = $1', [runId])
    ).rows[0]?.lease_owner;
    const stopping = deploy.find((node) => node.name === owner) ?? first;
    let stderr = '';
    stopping.child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const stoppedAt = Date.now();
    stopping.killed = true;
    stopping.child.kill('SIGTERM');
    await stopping.exited;
    const exitedInMs = Date.now() - stoppedAt;
    const all = await following;
    const { rows } = await database.query<{ status: string; lease_owner: string | null }>(
      'SELECT status, lease_owner FROM server_runs WHERE run_id = $1',
      [runId],
    );
    const { rows: audit } = await database.query<{ outcome: string }>(
      `SELECT outcome FROM audit_log WHERE tool = 'apply_refund' AND run_id = $1`,
      [runId],
    );
    await database.end();
    const refunds = pool.countRefunds('SO20260902') - refundsBefore;
    console.info(
      `\ndeploy: SIGTERM to ${stopping.name} after 2 tool calls, it exited in ${exitedInMs} ms; the run ended ` +
        `${JSON.stringify(all.at(-1))} with ${all.length} events; refunds +${refunds}\n`,
    );
    expect(stopping.child.exitCode, stderr).toBe(0);
    expect(all.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'completed' });
    expect(all.map((event) => event.seq)).toEqual(upTo(all.length));
    expect(all.filter((event) => event.type === 'run:start')).toHaveLength(2);
    expect(rows).toEqual([{ status: 'completed', lease_owner: null }]);
    expect(audit.map((row) => row.outcome)).toEqual(['ok']);
    expect(refunds).toBe(1);
  }, 240_000);
});
