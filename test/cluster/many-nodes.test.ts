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
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExternalEvent } from '../../src/events/external-event.js';
import { usePostgresCluster } from '../../src/store/postgres/test-support/postgres-cluster.js';

const cluster = usePostgresCluster();
const root = join(import.meta.dirname, '..', '..');
const leaseMs = 2000;
const tokens = {
  alice: 'alice-token-0001-0123456789abcdef',
  staff: 'staff-token-0003-0123456789abcdef',
} as const;

interface Node {
  readonly name: string;
  readonly url: string;
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  killed: boolean;
}

const directory = mkdtempSync(join(tmpdir(), 'arbiter-many-nodes-'));
const nodes: Node[] = [];
afterAll(async () => {
  for (const node of nodes) {
    if (!node.killed) node.child.kill('SIGTERM');
    await node.exited;
  }
  rmSync(directory, { recursive: true, force: true });
}, 60_000);

async function startNode(name: string, storeUrl: string, extra: readonly string[] = []): Promise<Node> {
  const authFile = join(directory, 'auth.json');
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/main.ts',
      'serve',
      ...['--port', '0', '--data-dir', join(directory, 'data'), '--auth', authFile],
      ...['--store', storeUrl, '--node-id', name, '--lease-ms', String(leaseMs)],
      ...extra,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env } },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/[^\s]+)/.exec(stdout);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`node ${name} exited (${code}) before listening:\n${stderr}`)));
  });
  const node: Node = { name, url, child, exited, killed: false };
  nodes.push(node);
  return node;
}

async function request(
  node: Node,
  path: string,
  { token = tokens.alice, method = 'GET', body }: { token?: string; method?: string; body?: unknown } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${node.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/**
 * Follows a run over SSE on `node`, from `lastEventId`, until a terminal
 * event or the connection drops.
 */
async function readEvents(
  node: Node,
  runId: string,
  lastEventId: number,
  onEvent: (event: ExternalEvent) => void,
): Promise<void> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 60_000);
  try {
    const response = await fetch(`${node.url}/v1/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${tokens.alice}`, 'last-event-id': String(lastEventId) },
      signal: controller.signal,
    });
    if (response.body === null) return;
    const decoder = new TextDecoder();
    let buffer = '';
    const reader = response.body.getReader();
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return;
      buffer += decoder.decode(chunk.value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trim());
        if (data.length === 0) continue;
        const event = JSON.parse(data.join('\n')) as ExternalEvent;
        onEvent(event);
        if (event.type === 'run:end' || event.type === 'run:error') return;
      }
    }
  } catch {
    // The node died under the connection: the caller reconnects elsewhere.
  } finally {
    clearTimeout(timer);
  }
}

/** Follows a run to its end across nodes: reconnects with `Last-Event-ID` to a live node when one dies. */
async function followToEnd(
  first: Node,
  runId: string,
  lastEventId: number,
  onEvent: (event: ExternalEvent) => void = () => {},
): Promise<ExternalEvent[]> {
  const events: ExternalEvent[] = [];
  let node = first;
  const started = Date.now();
  while (Date.now() - started < 60_000) {
    await readEvents(node, runId, events.at(-1)?.seq ?? lastEventId, (event) => {
      events.push(event);
      onEvent(event);
    });
    const last = events.at(-1);
    // A run that stops for approval ends its stream too: the caller decides and follows again.
    if (last?.type === 'run:end' || last?.type === 'run:error') return events;
    const live = nodes.filter((candidate) => !candidate.killed);
    node = live[(live.indexOf(node) + 1) % live.length] ?? first;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`run ${runId} did not end within a minute; read ${events.length} events`);
}

function countRefunds(): number {
  const shop = new Database(join(directory, 'data', 'shop.db'), { readonly: true, fileMustExist: true });
  try {
    return (shop.prepare('SELECT COUNT(*) AS count FROM refunds').get() as { count: number }).count;
  } finally {
    shop.close();
  }
}

describe.skipIf(cluster.skip)('many arbiter serve nodes on one PostgreSQL database', () => {
  it('finishes a run on another node after SIGKILL of the one executing it, each event once, the refund once', async () => {
    writeFileSync(
      join(directory, 'auth.json'),
      JSON.stringify({
        tokens: [
          { token: tokens.alice, tenantId: 'shop', userId: 'C1001', roles: ['customer'] },
          { token: tokens.staff, tenantId: 'shop', userId: 'S9001', roles: ['approver'] },
        ],
      }),
    );
    const admin = new pg.Client({ connectionString: cluster.connectionString });
    await admin.connect();
    await admin.query('CREATE DATABASE many_nodes');
    await admin.end();
    const storeUrl = cluster.connectionString.replace(/\/postgres$/, '/many_nodes');
    const [a, b, c] = await Promise.all(
      ['node-a', 'node-b', 'node-c'].map((name) => startNode(name, storeUrl, ['--sessions-per-minute', '4'])),
    );
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
    process.stdout.write(
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
});
