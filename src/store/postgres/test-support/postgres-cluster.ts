import { afterAll, beforeAll } from 'vitest';
import { findPostgresBinaries, type PostgresCluster, startPostgresCluster } from './start-postgres-cluster.js';

export {
  findPostgresBinaries,
  type PostgresBinaries,
  type PostgresCluster,
  startPostgresCluster,
} from './start-postgres-cluster.js';

/** What `setUpPostgresCluster` hands a test file. */
export interface PostgresClusterHandle {
  /** True where the binaries are absent outside CI: the file's PostgreSQL tests skip (and say why). */
  readonly skip: boolean;
  /** Why they skip, or undefined. */
  readonly skipReason: string | undefined;
  /** The running cluster's connection string (after `beforeAll`). */
  readonly connectionString: string;
  /** A schema name no other test of this run uses. */
  freshSchema(): string;
  /** `pg_ctl restart -m fast` of the running cluster (see `PostgresCluster.restart`). */
  restart(): Promise<void>;
}

/**
 * One throwaway cluster for the test file that calls it (at the top level):
 * started in `beforeAll`, stopped and removed in `afterAll`; each test takes
 * a schema of its own with `freshSchema()`. Where the binaries are absent
 * and `CI` is not set, `skip` is true and the reason is printed; under CI a
 * missing binary fails the file's tests instead.
 *
 * @example
 * const cluster = setUpPostgresCluster();
 * describe.skipIf(cluster.skip)('PostgreSQL', () => {
 *   it('opens', async () => {
 *     const backend = await openPostgresBackend({ connectionString: cluster.connectionString, schema: cluster.freshSchema() });
 *     await backend.close();
 *   });
 * });
 */
export function setUpPostgresCluster(): PostgresClusterHandle {
  const binaries = findPostgresBinaries();
  const missing =
    binaries === undefined
      ? 'PostgreSQL server binaries (initdb, pg_ctl) not found: install Debian\'s "postgresql" package, or set ARBITER_POSTGRES_BINDIR'
      : undefined;
  const skip = missing !== undefined && !isCi();
  if (skip) process.stdout.write(`\nskipping the PostgreSQL tests: ${missing}\n`);
  let cluster: PostgresCluster | undefined;
  let schemas = 0;
  const prefix = `t${process.pid}_${Date.now().toString(36)}`;
  if (!skip) {
    beforeAll(async () => {
      if (binaries === undefined) throw new Error(`CI is set and ${missing}`);
      cluster = await startPostgresCluster({ binaries });
    }, 120_000);
    afterAll(async () => {
      await cluster?.stop();
    }, 60_000);
  }
  return {
    skip,
    skipReason: skip ? missing : undefined,
    get connectionString(): string {
      if (cluster === undefined) throw new Error('the PostgreSQL cluster is not running (outside beforeAll/afterAll?)');
      return cluster.connectionString;
    },
    restart: async () => {
      if (cluster === undefined) throw new Error('the PostgreSQL cluster is not running (outside beforeAll/afterAll?)');
      await cluster.restart();
    },
    freshSchema: () => {
      schemas += 1;
      return `${prefix}_${schemas}`;
    },
  };
}

function isCi(): boolean {
  const value = process.env['CI'];
  return value !== undefined && value !== '' && value !== 'false' && value !== '0';
}
