/**
 * Three real `arbiter serve --store postgres://…` processes on one
 * throwaway cluster, the shop example's tools on one shared data directory
 * (its refunds table counts the side effects). A customer starts a refund
 * through node A and follows it on node B; an approver approves it through
 * node C; whichever node claims the requeued run executes it, and is
 * killed with SIGKILL once the refund has been made (while the model
 * writes its answer). Another node must claim the run when the lease lapses
 * and finish it from its journal: the follower sees every event once, in
 * seq order, up to `run:end`, and the refund exists once. Then a
 * per-principal limit is hit across the remaining nodes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExternalEvent } from '../../src/events/external-event.js';
import { setUpPostgresCluster } from '../../src/store/postgres/test-support/postgres-cluster.js';
import { leaseMs, type Node, NodePool, request, tokens } from './cluster-nodes.js';

const cluster = setUpPostgresCluster();
/**
 * Random kills after the one scripted above; ARBITER_KILL_TRIALS=20 for the
 * issue's count. It counts kills, not trials: a run that ends before its kill
 * delay kills nothing, so trials go on (up to three times the number asked)
 * until that many kills happened.
 */
const killTrials = Number(process.env['ARBITER_KILL_TRIALS'] ?? 4);
const directory = mkdtempSync(join(tmpdir(), 'arbiter-many-nodes-'));
const pool = new NodePool(directory);
const nodes = pool.nodes;
const startNode = (name: string, storeUrl: string, extra: readonly string[] = []) => pool.start(name, storeUrl, extra);
const followToEnd = pool.followToEnd.bind(pool);
const countRefunds = () => pool.countRefunds();
afterAll(async () => {
  await pool.stopAll();
  rmSync(directory, { recursive: true, force: true });
}, 60_000);

describe.skipIf(cluster.skip)('many arbiter serve nodes on one PostgreSQL database', () => {
  it('finishes a run on another node after SIGKILL of the one executing it, each event once, the refund once', async () => {
    const admin = new pg.Client({ connectionString: cluster.connectionString });
    await admin.connect();
    await admin.query('CREATE DATABASE many_nodes');
    await admin.end();
    const storeUrl = cluster.connectionString.replace(/\/postgres$/, '/many_nodes');
    // One after another: nodes sharing a data directory would otherwise race to create the shop's SQLite file
    // (switching a new file to WAL while another connection opens it fails at once with "database is locked").
    const started: Node[] = [];
    for (const name of ['node-a', 'node-b', 'node-c'])
      started.push(await startNode(name, storeUrl, ['--sessions-per-minute', '4']));
    const [a, b, c] = started;
    if (a === undefined || b === undefined || c === undefined) throw new Error('three nodes');
    const refundsBefore = countRefunds();

    const session = await request(a, '/v1/sessions', { method: 'POST' });
    const sessionId = session.body.id as string;
    const sent = await request(a, `/v1/sessions/${sessionId}/messages`, {
      method: 'POST',
      body: { content: 'My teapot arrived cracked, I want a refund.' },
    });
    expect(sent.status).toBe(202);
    const runId = sent.body.runId as string;
    const waiting = await followToEnd(b, runId, 0);
    expect(waiting.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'awaiting_approval' });
    const required = waiting.find((event) => event.type === 'approval:required') as ExternalEvent & {
      approvalId: string;
    };

    // Approved through C: whichever node claims the run executes it; it dies once the refund is made.
    const decided = await request(c, `/v1/approvals/${required.approvalId}`, {
      token: tokens.staff,
      method: 'POST',
      body: { decision: 'approve' },
    });
    expect(decided).toMatchObject({ status: 202, body: { resumed: true } });
    const database = new pg.Client({ connectionString: storeUrl });
    await database.connect();
    let victim: Node | undefined;
    let killedAt = 0;
    const resumed = await followToEnd(b, runId, waiting.at(-1)?.seq ?? 0, (event) => {
      if (event.type !== 'tool:end' || victim !== undefined) return;
      victim = nodes.find((node) => !node.killed);
      void database.query('SELECT lease_owner FROM server_runs WHERE run_id = $1', [runId]).then(({ rows }) => {
        const owner = nodes.find((node) => node.name === rows[0]?.lease_owner);
        if (owner === undefined) return;
        victim = owner;
        owner.killed = true;
        killedAt = Date.now();
        owner.child.kill('SIGKILL');
      });
    });
    const recoveredInMs = Date.now() - killedAt;
    const owners = await database.query('SELECT lease_owner, status FROM server_runs WHERE run_id = $1', [runId]);
    await database.end();

    const all = [...waiting, ...resumed];
    const seqs = all.map((event) => event.seq);
    console.info(
      `\nmany nodes: killed ${victim?.name} after tool:end; the run ended ${recoveredInMs} ms later ` +
        `(lease ${leaseMs} ms) with ${all.length} events, seqs 1..${seqs.at(-1)}; refunds +${countRefunds() - refundsBefore}\n`,
    );
    expect(victim?.killed).toBe(true);
    expect(resumed.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'completed' });
    expect(seqs).toEqual(all.map((_, index) => index + 1));
    expect(countRefunds() - refundsBefore).toBe(1);
    expect(owners.rows).toEqual([{ lease_owner: null, status: 'completed' }]);

    const live = nodes.filter((node) => !node.killed);
    // The session leaves the run just after its last event is written.
    let shown = await request(live[0] as Node, `/v1/sessions/${sessionId}`);
    for (let tries = 0; shown.body.status !== 'idle' && tries < 50; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      shown = await request(live[0] as Node, `/v1/sessions/${sessionId}`);
    }
    expect(shown.body).toMatchObject({ status: 'idle', activeRunId: null });

    // Four sessions a minute for alice, however they are spread: one is already taken above.
    const statuses: number[] = [];
    for (let index = 0; index < 5; index += 1) {
      const node = live[index % live.length] as Node;
      statuses.push((await request(node, '/v1/sessions', { method: 'POST' })).status);
    }
    expect(statuses).toEqual([201, 201, 201, 429, 429]);
  }, 180_000);

  it(
    `survives ${killTrials} SIGKILLs at random points of a payout: no second payout, no lost or repeated event or message, no stuck session`,
    async () => {
      // The first test's nodes make way for three on a database of their own, with a tool that counts its runs.
      for (const node of nodes.filter((candidate) => !candidate.killed)) {
        node.killed = true;
        node.child.kill('SIGTERM');
        await node.exited;
      }
      const payouts = join(directory, 'payouts.log');
      writeFileSync(payouts, '');
      const toolsModule = join(directory, 'payout-tools.mjs');
      writeFileSync(
        toolsModule,
        `import { appendFileSync } from 'node:fs';
      export function createTools() {
        return [{
          name: 'pay_out',
          description: 'Pay the customer back. Needs a person to approve.',
          parameters: { type: 'object', properties: { amount_cents: { type: 'integer', description: 'Cents' } },
            required: ['amount_cents'], additionalProperties: false },
          sideEffect: 'irreversible',
          idempotencyKey: (args, context) => 'payout:' + context.runId,
          execute: async ({ amount_cents }, context) => {
            appendFileSync(${JSON.stringify(payouts)}, context.runId + '\\n');
            return { paid: amount_cents };
          },
        }];
      }`,
      );
      const script = join(directory, 'payout-script.json');
      const answer =
        'Paid {{pay_out.paid}} cents back to your card. '.repeat(1) + 'It reaches you in a few days. '.repeat(12);
      writeFileSync(
        script,
        JSON.stringify({
          name: 'payout',
          onRefusal: 'Sorry: {reason}',
          turns: [{ steps: [{ call: { name: 'pay_out', arguments: { amount_cents: 500 } } }, { say: answer }] }],
        }),
      );
      const admin = new pg.Client({ connectionString: cluster.connectionString });
      await admin.connect();
      await admin.query('CREATE DATABASE many_trials');
      await admin.end();
      const trialsUrl = cluster.connectionString.replace(/\/postgres$/, '/many_trials');
      const flags = ['--tools', toolsModule, '--script', script];
      let started = 0;
      const startTrialNode = () => {
        started += 1;
        return startNode(`trial-node-${started}`, trialsUrl, flags);
      };
      for (let count = 0; count < 3; count += 1) await startTrialNode();
      const paidFor = (runId: string) =>
        readFileSync(payouts, 'utf8')
          .split('\n')
          .filter((line) => line === runId).length;

      const database = new pg.Client({ connectionString: trialsUrl });
      await database.connect();
      const counts = {
        trials: 0,
        kills: 0,
        duplicatedPayouts: 0,
        missingPayouts: 0,
        badEventSequences: 0,
        badMessages: 0,
        stuckSessions: 0,
        stuckRuns: 0,
        missingApprovalRequired: 0,
        /** Trials whose model proposed the payout again after an unknown outcome, approved again (not a failure). */
        approvedAgain: 0,
      };
      const stuck: unknown[] = [];
      let longestRecoveryMs = 0;
      try {
        for (let trial = 0; counts.kills < killTrials && trial < killTrials * 3; trial += 1) {
          counts.trials += 1;
          let live = nodes.filter((node) => !node.killed);
          while (live.length < 3) {
            await startTrialNode();
            live = nodes.filter((node) => !node.killed);
          }
          const [entry, follower, approver] = live as [Node, Node, Node];
          const token = trial % 2 === 0 ? tokens.alice : tokens.bob;
          const killInFirstStretch = Math.random() < 0.5;
          const killDelayMs = Math.floor(Math.random() * (killInFirstStretch ? 600 : 1500));
          let killedAt: number | undefined;
          const killOwner = async (runId: string) => {
            await new Promise((resolve) => setTimeout(resolve, killDelayMs));
            const { rows } = await database.query('SELECT lease_owner FROM server_runs WHERE run_id = $1', [runId]);
            const owner = nodes.find((node) => node.name === rows[0]?.lease_owner && !node.killed);
            if (owner === undefined) return; // the stretch had already ended: nothing to kill this time
            owner.killed = true;
            killedAt = Date.now();
            owner.child.kill('SIGKILL');
            counts.kills += 1;
          };
          const anyLive = () => nodes.find((node) => !node.killed) as Node;

          const session = await request(entry, '/v1/sessions', { method: 'POST', token });
          const sessionId = session.body.id as string;
          const sent = await request(entry, `/v1/sessions/${sessionId}/messages`, {
            method: 'POST',
            token,
            body: { content: 'Please pay me back.' },
          });
          const runId = sent.body.runId as string;
          let phase = 'first stretch';
          let approval: unknown;
          let first: ExternalEvent[] = [];
          let second: ExternalEvent[];
          try {
            const killing = killInFirstStretch ? killOwner(runId) : Promise.resolve();
            first = await followToEnd(follower, runId, 0, () => {}, token);
            await killing;
            const required = first.find((event) => event.type === 'approval:required') as
              | (ExternalEvent & { approvalId: string })
              | undefined;
            let approvalId = required?.approvalId;
            if (approvalId === undefined) {
              // A node killed after recording the approval but before writing `approval:required`: the node that
              // resumes the run must announce it. Counted (it must not happen), and found where an approver finds it.
              counts.missingApprovalRequired += 1;
              const shown = await request(anyLive(), `/v1/sessions/${sessionId}`, { token });
              approvalId = (shown.body.pendingApprovals as { approvalId: string }[] | undefined)?.[0]?.approvalId;
            }
            phase = 'approval';
            approval = await request(approver.killed ? anyLive() : approver, `/v1/approvals/${approvalId}`, {
              token: tokens.staff,
              method: 'POST',
              body: { decision: 'approve' },
            });
            phase = 'second stretch';
            const killingLater = killInFirstStretch ? Promise.resolve() : killOwner(runId);
            second = await followToEnd(
              follower.killed ? anyLive() : follower,
              runId,
              first.at(-1)?.seq ?? 0,
              () => {},
              token,
            );
            await killingLater;
            // Killed after the payout ran and before its outcome was recorded anywhere, the run tells the model the
            // outcome is unknown, and the model may propose the payout again: a new approval. Approved, its
            // idempotency key must stop a second payout.
            for (let again = 0; again < 3; again += 1) {
              const end = second.at(-1);
              if (end?.type !== 'run:end' || end.stopReason !== 'awaiting_approval') break;
              const next = second.findLast((event) => event.type === 'approval:required') as
                | (ExternalEvent & { approvalId: string })
                | undefined;
              if (next === undefined) break;
              counts.approvedAgain += 1;
              await request(anyLive(), `/v1/approvals/${next.approvalId}`, {
                token: tokens.staff,
                method: 'POST',
                body: { decision: 'approve' },
              });
              second = [...second, ...(await followToEnd(anyLive(), runId, end.seq, () => {}, token))];
            }
          } catch (error) {
            // A run that never ends is counted and described, so the line below reports it with the rest.
            counts.stuckRuns += 1;
            const { rows } = await database.query(
              'SELECT status, lease_owner, resume_requested FROM server_runs WHERE run_id = $1',
              [runId],
            );
            stuck.push({
              trial,
              runId,
              phase,
              killInFirstStretch,
              killDelayMs,
              killed: killedAt !== undefined,
              lastEvents: first.slice(-2).map((event) => `${event.seq}:${event.type}`),
              approval,
              serverRun: rows[0],
              error: String(error),
            });
            continue;
          }
          if (killedAt !== undefined) longestRecoveryMs = Math.max(longestRecoveryMs, Date.now() - killedAt);

          const all = [...first, ...second];
          const inOrder = all.every((event, index) => event.seq === index + 1);
          const payouts = paidFor(runId);
          if (!inOrder || second.at(-1)?.type !== 'run:end') counts.badEventSequences += 1;
          if (payouts > 1) counts.duplicatedPayouts += 1;
          if (payouts === 0) counts.missingPayouts += 1;
          let shown = await request(anyLive(), `/v1/sessions/${sessionId}`, { token });
          for (let tries = 0; shown.body.status !== 'idle' && tries < 200; tries += 1) {
            await new Promise((resolve) => setTimeout(resolve, 100));
            shown = await request(anyLive(), `/v1/sessions/${sessionId}`, { token });
          }
          if (shown.body.status !== 'idle') counts.stuckSessions += 1;
          const roles = (shown.body.messages as { role: string }[]).map((message) => message.role);
          if (roles.join(',') !== 'user,assistant') counts.badMessages += 1;
          if (payouts !== 1 || shown.body.status !== 'idle' || roles.join(',') !== 'user,assistant') {
            // Described with the counts, so a failure says which trial and how its run ended.
            const { rows } = await database.query(
              'SELECT status, lease_owner, resume_requested FROM server_runs WHERE run_id = $1',
              [runId],
            );
            stuck.push({
              trial,
              runId,
              payouts,
              status: shown.body.status,
              roles,
              killInFirstStretch,
              killDelayMs,
              killed: killedAt !== undefined,
              events: all.map(
                (event) => `${event.seq}:${event.type}${event.type === 'run:end' ? `(${event.stopReason})` : ''}`,
              ),
              serverRun: rows[0],
            });
          }
        }
      } finally {
        await database.end();
      }
      console.info(
        `\nmany nodes, random kills: ${counts.kills} kills in ${counts.trials} trials (${killTrials} asked), ` +
          `${JSON.stringify(counts)}, longest time from kill to the run's end ${longestRecoveryMs} ms (lease ${leaseMs} ms)\n` +
          stuck.map((entry) => `  failed trial: ${JSON.stringify(entry)}\n`).join(''),
      );
      expect(counts.kills).toBe(killTrials);
      expect(counts).toMatchObject({
        duplicatedPayouts: 0,
        missingPayouts: 0,
        badEventSequences: 0,
        badMessages: 0,
        stuckSessions: 0,
        stuckRuns: 0,
        missingApprovalRequired: 0,
      });
    },
    Math.max(600_000, killTrials * 3 * 20_000),
  );
});
