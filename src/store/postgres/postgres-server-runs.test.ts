import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresBackend, type PostgresBackend } from './open-postgres-backend.js';
import { setUpPostgresCluster } from './test-support/postgres-cluster.js';

const cluster = setUpPostgresCluster();
const principal = { tenantId: 'shop', userId: 'C1001', roles: [] };

describe.skipIf(cluster.skip)('PostgresServerRuns', () => {
  const opened: PostgresBackend[] = [];
  afterEach(async () => {
    for (const backend of opened.splice(0)) await backend.close();
  });

  async function twoNodes(): Promise<[PostgresBackend, PostgresBackend]> {
    const schema = cluster.freshSchema();
    const first = await openPostgresBackend({ connectionString: cluster.connectionString, schema });
    const second = await openPostgresBackend({ connectionString: cluster.connectionString, schema });
    opened.push(first, second);
    return [first, second];
  }

  function record(backend: PostgresBackend, runId: string, { owner = 'node-a', leaseMs = 10_000 } = {}) {
    return backend.serverRuns.insert(
      { runId, sessionId: `session-${runId}`, tenantId: 'shop', principal, locale: 'en', messageOffset: 0 },
      { owner, leaseMs },
    );
  }

  it('gives a lapsed run to exactly one of many claims racing from two pools', async () => {
    const [a, b] = await twoNodes();
    for (let round = 0; round < 5; round += 1) {
      await record(a, `run-${round}`, { leaseMs: -1 });
      const claims = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          (index % 2 === 0 ? a : b).serverRuns.claim({ owner: `node-${index}`, leaseMs: 10_000 }),
        ),
      );
      const winners = claims.flatMap((claimed, index) =>
        claimed.filter((run) => run.runId === `run-${round}`).map(() => `node-${index}`),
      );
      expect(winners).toHaveLength(1);
      expect((await a.serverRuns.lease(`run-${round}`)).owner).toBe(winners[0]);
    }
  });

  it('leaves a run whose lease is held alone, and lets another node claim it once the lease lapses', async () => {
    const [a, b] = await twoNodes();
    await record(a, 'run-1', { owner: 'node-a', leaseMs: 300 });
    expect(await b.serverRuns.claim({ owner: 'node-b', leaseMs: 10_000 })).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const claimed = await b.serverRuns.claim({ owner: 'node-b', leaseMs: 10_000 });
    expect(claimed.map((run) => [run.runId, run.principal, run.status])).toEqual([['run-1', principal, 'running']]);
    // The node that lost the lease learns it when it renews, and can no longer finish the run.
    expect(await a.serverRuns.renew({ runId: 'run-1', owner: 'node-a', leaseMs: 10_000 })).toBe(false);
    expect(await a.serverRuns.finish({ runId: 'run-1', owner: 'node-a', status: 'completed' })).toBe(false);
    expect((await a.serverRuns.find('run-1'))?.status).toBe('running');
  });

  it('requeues a run whose approvals were decided while it was still stopping, as soon as it stops', async () => {
    const [a, b] = await twoNodes();
    await record(a, 'run-1');
    expect(await b.serverRuns.requeue('run-1')).toBe('deferred');
    expect(await b.serverRuns.claim({ owner: 'node-b', leaseMs: 10_000 })).toEqual([]);
    expect(await a.serverRuns.finish({ runId: 'run-1', owner: 'node-a', status: 'awaiting_approval' })).toBe(true);
    const claimed = await b.serverRuns.claim({ owner: 'node-b', leaseMs: 10_000 });
    expect(claimed.map((run) => [run.runId, run.status])).toEqual([['run-1', 'running']]);
    // Once resumed, a stop for a new approval waits for it.
    await b.serverRuns.finish({ runId: 'run-1', owner: 'node-b', status: 'awaiting_approval' });
    expect((await a.serverRuns.find('run-1'))?.status).toBe('awaiting_approval');
    expect(await a.serverRuns.requeue('unknown-run')).toBe('not_waiting');
  });

  it('keeps a renewed lease past its first expiry', async () => {
    const [a, b] = await twoNodes();
    await record(a, 'run-1', { owner: 'node-a', leaseMs: 300 });
    for (let renewal = 0; renewal < 4; renewal += 1) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(await a.serverRuns.renew({ runId: 'run-1', owner: 'node-a', leaseMs: 300 })).toBe(true);
    }
    expect(await b.serverRuns.claim({ owner: 'node-b', leaseMs: 10_000 })).toEqual([]);
    expect((await a.serverRuns.lease('run-1')).owner).toBe('node-a');
    await record(a, 'run-2', { owner: 'node-b', leaseMs: 300 });
    const kept = await a.serverRuns.renewMany({ runIds: ['run-1', 'run-2', 'run-3'], owner: 'node-a', leaseMs: 300 });
    expect([...kept]).toEqual(['run-1']);
  });

  it('frees the lease when the run finishes, and requeues a run waiting for approval for any node', async () => {
    const [a, b] = await twoNodes();
    await record(a, 'run-1');
    const failure = { code: 'model_call_failed', message: undefined, at: 1, modelCall: undefined };
    expect(await a.serverRuns.finish({ runId: 'run-1', owner: 'node-a', status: 'awaiting_approval', failure })).toBe(
      true,
    );
    expect(await a.serverRuns.lease('run-1')).toEqual({ owner: undefined, leftMs: undefined });
    expect((await b.serverRuns.find('run-1'))?.failure).toBeUndefined();
    expect(await b.serverRuns.claim({ owner: 'node-b', leaseMs: 10_000 })).toEqual([]);
    expect(await b.serverRuns.requeue('run-1')).toBe('requeued');
    expect(await b.serverRuns.requeue('run-1')).toBe('requeued');
    const claimed = await b.serverRuns.claim({ owner: 'node-b', leaseMs: 10_000 });
    expect(claimed.map((run) => run.runId)).toEqual(['run-1']);
    await b.serverRuns.finish({ runId: 'run-1', owner: 'node-b', status: 'error', failure });
    expect(await a.serverRuns.find('run-1')).toMatchObject({
      status: 'error',
      failure: { code: 'model_call_failed', at: 1 },
    });
    expect((await a.serverRuns.listForSession('session-run-1')).map((run) => run.runId)).toEqual(['run-1']);
  });
});

describe.skipIf(cluster.skip)('PostgresServerRuns.adoptOrphans', () => {
  it('records a run its session is running without a record, once the session has been still long enough', async () => {
    const backend = await openPostgresBackend({
      connectionString: cluster.connectionString,
      schema: cluster.freshSchema(),
    });
    try {
      const session = await backend.sessions.create({ principal });
      await backend.sessions.beginRun({
        sessionId: session.id,
        runId: 'run-orphan',
        messages: [{ role: 'user', content: 'Where is my order?' }],
        locale: 'zh-CN',
      });
      expect(await backend.serverRuns.adoptOrphans({ olderThanMs: 60_000 })).toEqual([]);
      expect(await backend.serverRuns.adoptOrphans({ olderThanMs: -1000 })).toEqual(['run-orphan']);
      expect(await backend.serverRuns.adoptOrphans({ olderThanMs: -1000 })).toEqual([]);
      const [claimed] = await backend.serverRuns.claim({ owner: 'node-b', leaseMs: 10_000 });
      expect(claimed).toMatchObject({
        runId: 'run-orphan',
        sessionId: session.id,
        principal: { tenantId: 'shop', userId: 'C1001', roles: [] },
        locale: 'zh-CN',
        messageOffset: 0,
      });
    } finally {
      await backend.close();
    }
  });
});
