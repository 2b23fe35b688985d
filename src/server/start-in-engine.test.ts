import { afterEach, describe, expect, it } from 'vitest';
import type { Principal } from '../core/principal.js';
import type { DurableRunInput } from '../durable/run-in-engine.js';
import { SessionConflictError } from '../errors/session-conflict-error.js';
import { openPostgresBackend, type PostgresBackend } from '../store/postgres/open-postgres-backend.js';
import { setUpPostgresCluster } from '../store/postgres/test-support/postgres-cluster.js';
import { startInEngine } from './start-in-engine.js';

const cluster = setUpPostgresCluster();
const alice: Principal = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] };

/**
 * Arbiter's side of starting a run in an engine, on a real PostgreSQL: what
 * is written before the engine is asked, what the engine is handed, and
 * what is undone when it cannot be reached. The engines themselves run in
 * test/engines/ (DBOS, Restate).
 */
describe.skipIf(cluster.skip)('startInEngine', () => {
  let backend: PostgresBackend | undefined;
  afterEach(async () => {
    await backend?.close();
    backend = undefined;
  });

  async function open() {
    backend = await openPostgresBackend({ connectionString: cluster.connectionString, schema: cluster.freshSchema() });
    const session = await backend.sessions.create({ principal: alice });
    return { backend, sessionId: session.id };
  }

  it('records the run leased to the engine with the message, then hands the engine the whole conversation', async () => {
    const { backend, sessionId } = await open();
    await backend.sessions.append({ sessionId, messages: [{ role: 'user', content: 'Earlier question' }] });
    const started: DurableRunInput[] = [];
    const start = startInEngine({
      engine: { name: 'dbos', runs: { start: async (input) => started.push(input), resumeRun: async () => {} } },
      sessions: backend.sessions,
      serverRuns: backend.serverRuns,
    });
    const { runId } = await start({ sessionId, principal: alice, content: 'Refund SO20260901', locale: 'en' });
    expect(started).toEqual([
      {
        runId,
        sessionId,
        principal: alice,
        locale: 'en',
        messages: [
          { role: 'user', content: 'Earlier question' },
          { role: 'user', content: 'Refund SO20260901' },
        ],
      },
    ]);
    expect(await backend.serverRuns.find(runId)).toMatchObject({ status: 'running', messageOffset: 1, sessionId });
    const lease = await backend.serverRuns.lease(runId);
    expect(lease.owner).toBe('engine:dbos');
    // No node claims it: its lease outlives the approvals it may wait for.
    expect(lease.leftMs).toBeGreaterThan(7 * 24 * 60 * 60 * 1000);
    expect((await backend.sessions.load(sessionId))?.activeRun?.runId).toBe(runId);

    // A second message while the run is active: refused naming it, and the engine is not asked.
    const refused = await start({ sessionId, principal: alice, content: 'Again', locale: 'en' }).catch(
      (error: unknown) => error,
    );
    expect(SessionConflictError.isInstance(refused) && refused.activeRunId).toBe(runId);
    expect(started).toHaveLength(1);
  });

  it('frees the session and marks the run failed when the engine cannot be reached', async () => {
    const { backend, sessionId } = await open();
    const start = startInEngine({
      engine: {
        name: 'restate',
        runs: {
          start: async () => {
            throw new Error('connect ECONNREFUSED 127.0.0.1:8080');
          },
          resumeRun: async () => {},
        },
      },
      sessions: backend.sessions,
      serverRuns: backend.serverRuns,
    });
    await expect(start({ sessionId, principal: alice, content: 'Refund SO20260901', locale: 'en' })).rejects.toThrow(
      'ECONNREFUSED',
    );
    const session = await backend.sessions.load(sessionId);
    expect(session?.status).toBe('idle');
    expect(session?.activeRun).toBeUndefined();
    const [run] = await backend.serverRuns.listForSession(sessionId);
    expect(run).toMatchObject({ status: 'error', failure: { code: 'engine_unavailable' } });
  });
});
