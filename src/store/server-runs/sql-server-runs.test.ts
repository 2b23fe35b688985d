import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresBackend } from '../postgres/open-postgres-backend.js';
import { PostgresDatabase } from '../postgres/postgres-database.js';
import { PostgresServerRuns } from '../postgres/postgres-server-runs.js';
import { setUpPostgresCluster } from '../postgres/test-support/postgres-cluster.js';
import { openSqliteBackend } from '../sqlite/open-sqlite-backend.js';
import { ServerRuns } from '../sqlite/sqlite-server-runs.js';

const cluster = setUpPostgresCluster();
const principal = { tenantId: 'shop', userId: 'C1001', roles: [] };
const failure = { code: 'model_call_failed', message: 'timed out', at: 5, modelCall: undefined };

function newRun(runId: string) {
  return { runId, sessionId: 'session-1', tenantId: 'shop', principal, locale: 'en' as const, messageOffset: 2 };
}

/** A database in a fresh schema the PostgreSQL backend migrated. */
async function migratedDatabase() {
  const schema = cluster.freshSchema();
  const backend = await openPostgresBackend({ connectionString: cluster.connectionString, schema });
  const database = PostgresDatabase.open({ connectionString: cluster.connectionString, schema });
  return {
    database,
    close: async () => {
      await database.close();
      await backend.close();
    },
  };
}

const dialects = [
  {
    name: 'SQLite',
    skip: false,
    open: async () => {
      const backend = openSqliteBackend({ path: ':memory:' });
      let now = 1000;
      const runs = new ServerRuns({ database: backend.database, now: () => now++ });
      return { runs, close: async () => backend.close() };
    },
  },
  {
    name: 'PostgreSQL',
    skip: cluster.skip,
    open: async () => {
      const { database, close } = await migratedDatabase();
      let now = 1000;
      return { runs: new PostgresServerRuns({ database, now: () => now++ }), close };
    },
  },
];

describe.each(dialects)('SqlServerRuns on $name', ({ skip, open }) => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it.skipIf(skip)('records a run, writes where it stands, and keeps a failure only with `error`', async () => {
    const opened = await open();
    close = opened.close;
    const { runs } = opened;
    expect(await runs.insert(newRun('run-1'))).toEqual({
      ...newRun('run-1'),
      status: 'running',
      startedAt: 1000,
      updatedAt: 1000,
      failure: undefined,
    });
    await runs.insert(newRun('run-2'));
    await runs.setStatus('run-1', 'error', failure);
    expect(await runs.find('run-1')).toMatchObject({
      status: 'error',
      failure: { code: 'model_call_failed', message: 'timed out', at: 5 },
      updatedAt: 1002,
    });
    await runs.setStatus('run-1', 'completed', failure);
    expect(await runs.find('run-1')).toMatchObject({ status: 'completed', failure: undefined, startedAt: 1000 });
    expect(await runs.find('unknown')).toBeUndefined();
    expect((await runs.listForSession('session-1')).map((run) => [run.runId, run.messageOffset])).toEqual([
      ['run-1', 2],
      ['run-2', 2],
    ]);
  });
});

describe.skipIf(cluster.skip)('PostgresServerRuns.finish on a caller’s transaction', () => {
  it('writes with that transaction: nothing stays when it rolls back', async () => {
    const { database, close } = await migratedDatabase();
    try {
      const runs = new PostgresServerRuns({ database });
      await runs.insert(newRun('run-1'), { owner: 'node-a', leaseMs: 10_000 });
      const rolledBack = database.transaction(async (query) => {
        expect(await runs.finish({ runId: 'run-1', owner: 'node-a', status: 'completed', query })).toBe(true);
        throw new Error('the terminal event was not written');
      });
      await expect(rolledBack).rejects.toThrow('the terminal event was not written');
      expect(await runs.find('run-1')).toMatchObject({ status: 'running' });
      expect((await runs.lease('run-1')).owner).toBe('node-a');
    } finally {
      await close();
    }
  });
});
