import type { AssembledServer } from '../create-server.js';
import { type PostgresServerOptions, startPostgresServer } from '../postgres-server.js';
import type { RunningServer, StartServerOptions } from '../start-server.js';
import { testAuth } from './test-server.js';

/**
 * One node of the shop example on a test's PostgreSQL schema, for tests of
 * several nodes on one database: an ephemeral port, `testAuth`, a 1.5 s
 * lease (so another node takes over soon), 1 s heartbeats, no streaming
 * delay, silent. Nodes of one test share `schema` and `dataDir`; `close()`
 * each afterwards. `overrides` adds or replaces options (e.g. `principalLimits`).
 *
 * @example
 * const a = await startPostgresTestNode({ connectionString: cluster.connectionString, schema, dataDir });
 */
export function startPostgresTestNode({
  connectionString,
  schema,
  dataDir,
  ...overrides
}: { connectionString: string; schema: string; dataDir: string } & Partial<
  StartServerOptions & PostgresServerOptions
>): Promise<RunningServer<AssembledServer>> {
  return startPostgresServer({
    port: 0,
    dataDir,
    connectionString,
    schema,
    leaseMs: 1500,
    auth: testAuth,
    streamingDelay: false,
    heartbeatMs: 1000,
    shutdownGraceMs: 200,
    onError: () => {},
    logger: () => {},
    ...overrides,
  });
}
