import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../errors/configuration-error.js';
import { openPostgresBackend, type PostgresBackend } from './open-postgres-backend.js';
import { setUpPostgresCluster } from './test-support/postgres-cluster.js';

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

  it('refuses a schema name that would need quoting, and a backend with nowhere to connect', async () => {
    await expect(
      openPostgresBackend({ connectionString: cluster.connectionString, schema: 'Robert"; DROP' }),
    ).rejects.toSatisfy(ConfigurationError.isInstance);
    await expect(openPostgresBackend({})).rejects.toSatisfy(ConfigurationError.isInstance);
  });
});
