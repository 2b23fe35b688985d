import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../errors/configuration-error.js';
import { openPostgresBackend, type PostgresBackend } from './open-postgres-backend.js';
import { PostgresDatabase } from './postgres-database.js';
import { PostgresListener } from './postgres-listener.js';
import { setUpPostgresCluster } from './test-support/postgres-cluster.js';
import { startStartupHoldingProxy } from './test-support/startup-holding-proxy.js';

const cluster = setUpPostgresCluster();

describe.skipIf(cluster.skip)('PostgresDatabase', () => {
  const opened: PostgresBackend[] = [];
  const pools: pg.Pool[] = [];
  afterEach(async () => {
    for (const backend of opened.splice(0)) await backend.close();
    for (const pool of pools.splice(0)) await pool.end();
  });

  it("keeps two schemas apart on one application pool, and leaves the application's pool open", async () => {
    // One connection: every checkout alternates between the two schemas' search paths.
    const pool = new pg.Pool({ connectionString: cluster.connectionString, max: 1 });
    pools.push(pool);
    const [shop, bank] = [cluster.freshSchema(), cluster.freshSchema()];
    const first = await openPostgresBackend({ pool, schema: shop });
    const second = await openPostgresBackend({ pool, schema: bank });
    for (let index = 0; index < 3; index += 1) {
      await first.sessions.create({ sessionId: `shop-${index}` });
      await second.sessions.create({ sessionId: `bank-${index}` });
    }
    expect((await first.sessions.list()).map((session) => session.id).sort()).toEqual(['shop-0', 'shop-1', 'shop-2']);
    expect((await second.sessions.list()).map((session) => session.id).sort()).toEqual(['bank-0', 'bank-1', 'bank-2']);
    await first.close();
    await second.close();
    expect(pool.ended).toBe(false);
    const counts = await pool.query<{ schema: string; sessions: number }>(
      `SELECT '${shop}' AS schema, count(*)::integer AS sessions FROM ${shop}.sessions
       UNION ALL SELECT '${bank}', count(*)::integer FROM ${bank}.sessions`,
    );
    expect(counts.rows).toEqual([
      { schema: shop, sessions: 3 },
      { schema: bank, sessions: 3 },
    ]);
  });

  it('outlives a connection the server ends in the same read as the end of its startup (57P01 before any statement)', async () => {
    const proxy = await startStartupHoldingProxy({ connectionString: cluster.connectionString });
    const database = PostgresDatabase.open({ connectionString: proxy.connectionString, connectWaitMs: 0 });
    const admin = new pg.Client({ connectionString: cluster.connectionString });
    await admin.connect();
    // What a restart does to a connection just opened, made certain: the server's 57P01 comes in the read that
    // hands the connection to the pool's caller, before any listener the caller adds after its `await`.
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      const held = proxy.holdNextStartup();
      const lost = database.query('SELECT 1 AS one');
      const { processId } = await held;
      const { rows } = await admin.query<{ ended: boolean }>('SELECT pg_terminate_backend($1) AS ended', [processId]);
      expect(rows).toEqual([{ ended: true }]);
      await expect(lost).rejects.toThrow(/not queryable|terminat/);
      // The next turns of the event loop: where an unhandled `'error'` event would have ended the process.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(uncaught).toEqual([]);
      // The lost connection was dropped; the next statement gets a new one.
      expect((await database.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      process.off('uncaughtException', onUncaught);
      await admin.end();
      await database.close();
      await proxy.close();
    }
  });

  it('outlives a restart (pg_ctl restart -m fast) with connections idle, held, in a statement, in a transaction and listening', async () => {
    const database = PostgresDatabase.open({ connectionString: cluster.connectionString, poolSize: 8 });
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    let listener: PostgresListener | undefined;
    try {
      // Idle in the pool: four connections opened and handed back.
      await Promise.all([1, 2, 3, 4].map(() => database.query("SELECT pg_sleep(0.05), 'idle'")));
      const heard: string[] = [];
      let reconnected = 0;
      listener = await PostgresListener.open({
        database,
        channel: 'arbiter_restart',
        onNotification: (payload) => heard.push(String(payload)),
        onReconnected: () => {
          reconnected += 1;
        },
      });
      // Checked out with no statement under way.
      const held = await database.connect();
      // In a statement.
      const sleeping = database.query('SELECT pg_sleep(30)').then(
        () => 'finished',
        (error: unknown) => (error as { code?: string }).code ?? String(error),
      );
      // In a transaction, lost before its COMMIT: run again on a new connection.
      let attempts = 0;
      const transaction = database.transaction(async (query) => {
        attempts += 1;
        await query('SELECT 1');
        if (attempts === 1) await query('SELECT pg_sleep(30)');
        return attempts;
      });
      // Both statements are under way on the server before it restarts.
      const sleepers = async () =>
        (
          await database.query<{ count: number }>(
            "SELECT count(*)::integer AS count FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)' AND state = 'active'",
          )
        ).rows[0]?.count;
      const underWayBy = Date.now() + 20_000;
      while ((await sleepers()) !== 2 && Date.now() < underWayBy)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await sleepers()).toBe(2);

      await cluster.restart();

      expect(await sleeping).toBe('57P01');
      expect(await transaction).toBe(2);
      await expect(held.query('SELECT 1')).rejects.toThrow();
      held.release(true);
      const deadline = Date.now() + 20_000;
      while (reconnected === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(reconnected).toBeGreaterThan(0);
      await database.query("NOTIFY arbiter_restart, 'after'");
      while (heard.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(heard).toEqual(['after']);
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
      await listener?.close();
      await database.close();
    }
  }, 60_000);

  it('refuses a schema name that would need quoting, and a backend with nowhere to connect', async () => {
    await expect(
      openPostgresBackend({ connectionString: cluster.connectionString, schema: 'Robert"; DROP' }),
    ).rejects.toSatisfy(ConfigurationError.isInstance);
    await expect(openPostgresBackend({})).rejects.toSatisfy(ConfigurationError.isInstance);
  });
});
