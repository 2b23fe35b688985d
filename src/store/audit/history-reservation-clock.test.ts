/**
 * A principal's history reservation (what makes a cumulative rule hold
 * across nodes) lapses on the database's clock: a node whose clock runs
 * eleven minutes ahead of the holder's does not read the live reservation
 * as lapsed and spend the same headroom. SQLite and PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HistoryRelease } from '../../core/call-history.js';
import { openPostgresBackend } from '../postgres/open-postgres-backend.js';
import { PostgresAuditLog } from '../postgres/postgres-audit-log.js';
import { PostgresDatabase } from '../postgres/postgres-database.js';
import { setUpPostgresCluster } from '../postgres/test-support/postgres-cluster.js';
import { SqliteAuditLog } from '../sqlite/sqlite-audit-log.js';
import { openSqliteStore } from '../sqlite/sqlite-store.js';

const cluster = setUpPostgresCluster();
const directory = mkdtempSync(join(tmpdir(), 'arbiter-history-clock-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const elevenMinutes = 11 * 60 * 1000;

interface Reservers {
  readonly behind: { reserveHistory(key: string): Promise<HistoryRelease> };
  readonly ahead: { reserveHistory(key: string): Promise<HistoryRelease> };
  close(): Promise<void>;
}

const stores: { name: string; skip: boolean; open: () => Promise<Reservers> }[] = [
  {
    name: 'SQLite',
    skip: false,
    open: async () => {
      const path = join(directory, 'history.db');
      const [first, second] = [openSqliteStore({ path }), openSqliteStore({ path })];
      return {
        behind: new SqliteAuditLog({ database: first.database, now: () => Date.now() - elevenMinutes }),
        ahead: new SqliteAuditLog({ database: second.database, now: () => Date.now() + elevenMinutes }),
        close: async () => {
          first.close();
          second.close();
        },
      };
    },
  },
  {
    name: 'PostgreSQL',
    skip: cluster.skip,
    open: async () => {
      const schema = cluster.freshSchema();
      const backend = await openPostgresBackend({ connectionString: cluster.connectionString, schema });
      const database = PostgresDatabase.open({ pool: backend.pool, schema });
      return {
        behind: new PostgresAuditLog({ database, now: () => Date.now() - elevenMinutes }),
        ahead: new PostgresAuditLog({ database, now: () => Date.now() + elevenMinutes }),
        close: () => Promise.resolve(backend.close()),
      };
    },
  },
];

describe.each(stores)("a principal's history reservation on $name", ({ skip, open }) => {
  it.skipIf(skip)('holds a node whose clock runs eleven minutes ahead until the holder releases it', async () => {
    const reservers = await open();
    try {
      const release = await reservers.behind.reserveHistory('shop\u0000C1001');
      let taken = false;
      const second = reservers.ahead.reserveHistory('shop\u0000C1001').then((releaseSecond) => {
        taken = true;
        return releaseSecond;
      });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(taken).toBe(false);
      await release();
      await (await second)();
      expect(taken).toBe(true);
    } finally {
      await reservers.close();
    }
  });
});
