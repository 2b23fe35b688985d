import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExternalEvent } from '../events/external-event.js';
import { setUpPostgresCluster } from '../store/postgres/test-support/postgres-cluster.js';
import type { AssembledServer } from './create-server.js';
import type { RunningServer } from './start-server.js';
import { startPostgresTestNode } from './test-support/postgres-test-node.js';
import { requestJson } from './test-support/request-json.js';
import { readSse } from './test-support/sse-client.js';
import { testTokens } from './test-support/test-server.js';

const cluster = setUpPostgresCluster();

describe.skipIf(cluster.skip)('the server on PostgreSQL', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A node on the shop example, its data directory shared by the nodes of a test (the shop's own database). */
  async function startNode({ schema, dataDir, maxStreams }: { schema: string; dataDir: string; maxStreams?: number }) {
    const running = await startPostgresTestNode({
      connectionString: cluster.connectionString,
      schema,
      dataDir,
      ...(maxStreams === undefined ? {} : { principalLimits: { maxStreams } }),
    });
    cleanups.push(() => running.close());
    return running;
  }

  function scratch(): string {
    const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-pg-server-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    return dataDir;
  }

  function request(
    node: { readonly url: string },
    path: string,
    { token = testTokens.alice, ...rest }: { token?: string; method?: string; body?: unknown } = {},
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    return requestJson(node.url, path, { token, ...rest });
  }

  it('answers a question, and finishes a refund approved through another node', async () => {
    const schema = cluster.freshSchema();
    const dataDir = scratch();
    const a = await startNode({ schema, dataDir });
    const b = await startNode({ schema, dataDir });

    const session = await request(a, '/v1/sessions', { method: 'POST' });
    const sessionId = session.body.id as string;
    const asked = await request(a, `/v1/sessions/${sessionId}/messages`, {
      method: 'POST',
      body: { content: 'Where is my order SO20260901?' },
    });
    expect(asked.status).toBe(202);
    const question = await readSse({ url: `${b.url}/v1/runs/${asked.body.runId}/events`, token: testTokens.alice });
    expect(question.events.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'completed' });
    expect(question.events.map((event) => event.seq)).toEqual(question.events.map((_, index) => index + 1));

    const refund = await request(b, `/v1/sessions/${sessionId}/messages`, {
      method: 'POST',
      body: { content: 'My teapot arrived cracked, I want a refund.' },
    });
    const runId = refund.body.runId as string;
    const waiting = await readSse({ url: `${a.url}/v1/runs/${runId}/events`, token: testTokens.alice });
    expect(waiting.events.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'awaiting_approval' });
    // The status is committed with the terminal event: any node that showed the end shows the status.
    expect(await request(b, `/v1/runs/${runId}`)).toMatchObject({ body: { status: 'awaiting_approval' } });
    const required = waiting.events.find((event) => event.type === 'approval:required') as ExternalEvent & {
      approvalId: string;
    };
    const decided = await request(a, `/v1/approvals/${required.approvalId}`, {
      token: testTokens.staff,
      method: 'POST',
      body: { decision: 'approve' },
    });
    expect(decided).toMatchObject({ status: 202, body: { resumed: true } });
    const lastSeen = waiting.events.at(-1)?.seq ?? 0;
    const resumed = await readSse({
      url: `${b.url}/v1/runs/${runId}/events`,
      token: testTokens.alice,
      lastEventId: lastSeen,
    });
    expect(resumed.events.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'completed' });
    expect(resumed.events.map((event) => event.seq)).toEqual(resumed.events.map((_, index) => lastSeen + index + 1));
    expect(resumed.events.some((event) => event.type === 'tool:end')).toBe(true);

    // The session leaves the run just after its last event is written.
    let shown = await request(b, `/v1/sessions/${sessionId}`);
    for (let tries = 0; shown.body.status !== 'idle' && tries < 50; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      shown = await request(b, `/v1/sessions/${sessionId}`);
    }
    expect(shown.body).toMatchObject({ status: 'idle', activeRunId: null, pendingApprovals: [] });
    expect((shown.body.runs as { status: string }[]).map((run) => run.status)).toEqual(['completed', 'completed']);
    expect(await request(a, `/v1/runs/${runId}`)).toMatchObject({ status: 200, body: { status: 'completed' } });
  });

  it('keeps a one-message session to the transactions it needs (its node’s own counts, by what each did)', async () => {
    const schema = cluster.freshSchema();
    const metricsToken = 'postgres-server-test-metrics-token-0123';
    const node = await startPostgresTestNode({
      connectionString: cluster.connectionString,
      schema,
      dataDir: scratch(),
      metricsToken,
    });
    cleanups.push(() => node.close());
    const counts = async () => {
      const response = await fetch(`${node.url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
      const text = await response.text();
      const found = new Map<string, number>();
      for (const [, work = '', count = '0'] of text.matchAll(
        /^arbiter_postgres_transactions_total\{work="([^"]*)"\} (\d+)$/gm,
      ))
        found.set(work, Number(count));
      return found;
    };
    const before = await counts();
    const session = await request(node, '/v1/sessions', { method: 'POST' });
    const sent = await request(node, `/v1/sessions/${session.body.id}/messages`, {
      method: 'POST',
      body: { content: 'Where is my order SO20260901?' },
    });
    const streamed = await readSse({ url: `${node.url}/v1/runs/${sent.body.runId}/events`, token: testTokens.alice });
    expect(streamed.events.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'completed' });
    // The stream gives its slot back a moment after the client has read its end.
    let added = new Map<string, number>();
    for (let tries = 0; tries < 100; tries += 1) {
      const after = await counts();
      added = new Map(
        [...after].map(([work, count]) => [work, count - (before.get(work) ?? 0)] as const).filter(([, n]) => n > 0),
      );
      if ((added.get('DELETE server_streams') ?? 0) > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const works = [...added.keys()];
    // Each per-user limit is one statement (a function holding the lock), not a transaction of seven.
    expect(added.get('SELECT arbiter_take_request')).toBe(2);
    expect(added.get('SELECT arbiter_open_stream')).toBe(1);
    expect(works.filter((work) => work.includes('pg_advisory_xact_lock'))).toEqual([]);
    // A run begun here has no recorded tool results to read; a session just created is not read back.
    expect(works.filter((work) => work.includes('tool_results'))).toEqual([]);
    expect(added.get('SELECT session_messages')).toBe(1);
    // Event batches without anything else to commit are one statement with their NOTIFY, not BEGIN … COMMIT.
    // A step commit is one statement (the session's update and its messages), not BEGIN … COMMIT.
    expect(works.filter((work) => work.includes('INSERT session_messages'))).toEqual([
      'SELECT sessions; UPDATE sessions; INSERT session_messages; INSERT server_runs',
    ]);
    expect(added.get('WITH updated')).toBeGreaterThanOrEqual(3);
    // The run's end, on the run's record and on its session, commits with its terminal event.
    expect(works.filter((work) => work.startsWith('INSERT run_events'))).toEqual([
      'INSERT run_events; UPDATE server_runs; UPDATE sessions; SELECT unnest',
    ]);
    expect(added.get('UPDATE sessions')).toBeUndefined();
  });

  it('counts a principal’s sessions per minute across nodes', async () => {
    const schema = cluster.freshSchema();
    const dataDir = scratch();
    const nodes = [await startNode({ schema, dataDir }), await startNode({ schema, dataDir })];
    const statuses: number[] = [];
    for (let index = 0; index < 22; index += 1) {
      const node = nodes[index % 2] as RunningServer<AssembledServer>;
      statuses.push((await request(node, '/v1/sessions', { method: 'POST' })).status);
    }
    // Twenty sessions a minute per user (the default), wherever they are created.
    expect(statuses.filter((status) => status === 201)).toHaveLength(20);
    expect(statuses.slice(20)).toEqual([429, 429]);
  });

  it('counts a principal’s open streams across nodes, and frees a slot when a stream closes', async () => {
    const schema = cluster.freshSchema();
    const dataDir = scratch();
    const a = await startNode({ schema, dataDir, maxStreams: 1 });
    const b = await startNode({ schema, dataDir, maxStreams: 1 });
    const session = await request(a, '/v1/sessions', { method: 'POST' });
    const sent = await request(a, `/v1/sessions/${session.body.id}/messages`, {
      method: 'POST',
      body: { content: 'My teapot arrived cracked, I want a refund.' },
    });
    const url = (node: RunningServer<AssembledServer>) => `${node.url}/v1/runs/${sent.body.runId}/events`;
    const first = await readSse({ url: url(a), token: testTokens.alice });
    expect(first.events.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'awaiting_approval' });
    // A client that has seen everything of a run waiting for approval is held open: it keeps the one slot.
    const seen = String(first.events.at(-1)?.seq ?? 0);
    const held = new AbortController();
    // The first stream gives its slot back once its end is sent, a moment after the client has read it.
    let holding = await fetch(url(a), {
      headers: { authorization: `Bearer ${testTokens.alice}`, 'last-event-id': seen },
      signal: held.signal,
    });
    for (let tries = 0; holding.status === 429 && tries < 50; tries += 1) {
      await holding.body?.cancel().catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 50));
      holding = await fetch(url(a), {
        headers: { authorization: `Bearer ${testTokens.alice}`, 'last-event-id': seen },
        signal: held.signal,
      });
    }
    expect(holding.status).toBe(200);
    const refused = await fetch(url(b), {
      headers: { authorization: `Bearer ${testTokens.alice}`, 'last-event-id': seen },
    });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { code: 'too_many_streams' } });
    held.abort();
    await holding.body?.cancel().catch(() => {});
    let status = 429;
    for (let tries = 0; status === 429 && tries < 50; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const again = await fetch(url(b), {
        headers: { authorization: `Bearer ${testTokens.alice}`, 'last-event-id': seen },
        signal: AbortSignal.timeout(300),
      }).catch(() => undefined);
      status = again?.status ?? 429;
      await again?.body?.cancel().catch(() => {});
    }
    expect(status).toBe(200);
  });
});
