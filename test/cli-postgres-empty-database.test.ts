/**
 * The operator's commands pointed at a PostgreSQL database that holds no
 * arbiter store (a mistyped database name, an empty one): each answers as on
 * an empty SQLite data directory, "no arbiter store at …" and exit 2, and
 * the database is left without a single table of arbiter's.
 */
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { setUpPostgresCluster } from '../src/store/postgres/test-support/postgres-cluster.js';
import { runArbiter } from './support/run-arbiter.js';

const cluster = setUpPostgresCluster();

describe.skipIf(cluster.skip)('the operator commands on a PostgreSQL database without an arbiter store', () => {
  let url: string;

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: cluster.connectionString });
    await admin.connect();
    await admin.query('CREATE DATABASE emptydb');
    await admin.end();
    url = cluster.connectionString.replace(/\/postgres$/, '/emptydb');
  });

  async function tablesIn(database: string): Promise<string[]> {
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    try {
      const { rows } = await client.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')",
      );
      return rows.map((row) => row.table_name);
    } finally {
      await client.end();
    }
  }

  it('answers every command "no arbiter store" with exit 2 and creates no table', { timeout: 240_000 }, async () => {
    for (const args of [
      ['approvals'],
      ['audit'],
      ['audit', 'verify'],
      ['sessions', 'list'],
      ['memory', 'list', '--user', 'u1'],
      ['approve', 'ap_1', '--by', 'S9001'],
    ]) {
      const ran = await runArbiter([...args, '--store', url]);
      expect({ args, code: ran.code, stderr: ran.stderr }).toEqual({
        args,
        code: 2,
        stderr: expect.stringMatching(/^arbiter: no arbiter store at postgres(ql)?:\/\/.*emptydb\n$/),
      });
      expect(await tablesIn(url)).toEqual([]);
    }
  });
});
