import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresMigrations } from './migrations/index.js';
import { openPostgresBackend, type PostgresBackend } from './open-postgres-backend.js';
import { setUpPostgresCluster } from './test-support/postgres-cluster.js';

const cluster = setUpPostgresCluster();

describe.skipIf(cluster.skip)('migratePostgres', () => {
  const opened: PostgresBackend[] = [];
  const pools: pg.Pool[] = [];
  afterEach(async () => {
    for (const backend of opened.splice(0)) await backend.close();
    for (const pool of pools.splice(0)) await pool.end();
  });
  const inspect = () => {
    const pool = new pg.Pool({ connectionString: cluster.connectionString, max: 1 });
    pools.push(pool);
    return pool;
  };

  it('applies each migration once when several openers migrate one schema at the same time', async () => {
    const schema = cluster.freshSchema();
    const backends = await Promise.all(
      Array.from({ length: 6 }, () => openPostgresBackend({ connectionString: cluster.connectionString, schema })),
    );
    opened.push(...backends);
    const latest = Math.max(...postgresMigrations.map((migration) => migration.version));
    expect(backends.map((backend) => backend.runtime.schemaVersion)).toEqual(backends.map(() => latest));
    const recorded = await inspect().query<{ version: number; times: string }>(
      `SELECT version, count(*) AS times FROM ${schema}.schema_migrations GROUP BY version ORDER BY version`,
    );
    expect(recorded.rows.map((row) => [row.version, Number(row.times)])).toEqual(
      postgresMigrations.map((migration) => [migration.version, 1]),
    );

    // Opened again later: nothing left to apply, nothing applied again.
    const before = await inspect().query(
      `SELECT version, applied_at FROM ${schema}.schema_migrations ORDER BY version`,
    );
    opened.push(await openPostgresBackend({ connectionString: cluster.connectionString, schema }));
    const after = await inspect().query(`SELECT version, applied_at FROM ${schema}.schema_migrations ORDER BY version`);
    expect(after.rows).toEqual(before.rows);
  });

  it('rolls a failed migration back whole and records nothing of it', async () => {
    const schema = cluster.freshSchema();
    const broken = {
      version: 99,
      name: 'broken',
      sql: 'CREATE TABLE half_done (id integer); SELECT 1 / 0;',
    };
    await expect(
      openPostgresBackend({
        connectionString: cluster.connectionString,
        schema,
        migrations: [...postgresMigrations, broken],
      }),
    ).rejects.toThrow(/division by zero/);
    const tables = await inspect().query<{ name: string }>(
      'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
      [schema],
    );
    expect(tables.rows.map((row) => row.name)).not.toContain('half_done');
    expect(tables.rows.map((row) => row.name)).toContain('sessions');
    const versions = await inspect().query(`SELECT version FROM ${schema}.schema_migrations WHERE version = 99`);
    expect(versions.rows).toEqual([]);
  });
});
