import { existsSync } from 'node:fs';
import type { Backend } from '../../store/backend.js';
import type { PostgresBackend } from '../../store/postgres/open-postgres-backend.js';
import type { ServerRun } from '../../store/server-run.js';
import type { SqliteBackend } from '../../store/sqlite/open-sqlite-backend.js';
import { storeVariableHint } from '../environment-hints.js';
import { describeStoreLocation, type StoreLocation, storeConnectTimeoutMs, storeFailure } from './store-location.js';

/** What `withBackend` says of a store that is not there yet, the same for every command. */
export function noStoreMessage(location: StoreLocation): string {
  // Only where no URL was given: the store defaulted to SQLite while another tool's variable names a database.
  const hint = location.dialect === 'sqlite' ? storeVariableHint(process.env) : '';
  return `no arbiter store at ${describeStoreLocation(location)}${hint}`;
}

/**
 * Connects once to the PostgreSQL store at `location` and disconnects,
 * within `storeConnectTimeoutMs`: a server checks its store this way before
 * it starts, so a wrong password, a missing database or a host that does not
 * answer is one line naming the flag, not a stack trace or half a minute of
 * retries (the retries are for a database that restarts under a running node).
 *
 * @example
 * await checkStoreReachable(location);
 */
export async function checkStoreReachable(location: StoreLocation): Promise<void> {
  if (location.dialect !== 'postgres') return;
  const { default: pg } = await import('pg');
  let client: InstanceType<typeof pg.Client> | undefined;
  try {
    // Constructing the client parses the string: a string pg cannot parse is said as any other failure.
    client = new pg.Client({ connectionString: location.url, connectionTimeoutMillis: storeConnectTimeoutMs });
    client.on('error', () => {});
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    throw storeFailure({ error, location });
  } finally {
    await client?.end().catch(() => {});
  }
}

/**
 * Whether the PostgreSQL database at `location` holds an arbiter store
 * (its `schema_migrations` table, on the connection's search path): a
 * command opens only a store that exists, so a mistyped database name never
 * gets arbiter's tables.
 */
async function postgresStoreExists(location: StoreLocation & { dialect: 'postgres' }): Promise<boolean> {
  const { default: pg } = await import('pg');
  let client: InstanceType<typeof pg.Client> | undefined;
  try {
    // Constructing the client parses the string: a string pg cannot parse is said as any other failure.
    client = new pg.Client({ connectionString: location.url, connectionTimeoutMillis: storeConnectTimeoutMs });
    client.on('error', () => {});
    await client.connect();
    const { rows } = await client.query<{ present: boolean }>(
      "SELECT to_regclass('schema_migrations') IS NOT NULL AS present",
    );
    return rows[0]?.present === true;
  } catch (error) {
    throw storeFailure({ error, location });
  } finally {
    await client?.end().catch(() => {});
  }
}

/**
 * Runs `work` on the backend at `location`: the SQLite file or the
 * PostgreSQL store, or `undefined` when there is none yet (no file; a
 * database without arbiter's tables): a command never creates one. A
 * PostgreSQL store is opened with a small pool that gives up within a few
 * seconds with one line naming `--store` / `ARBITER_STORE_URL`. The backend
 * is closed afterwards. pg is loaded only for PostgreSQL.
 *
 * @example
 * const result = await withBackend({ location, work: (backend) => (backend === undefined ? empty() : list(backend)) });
 */
export async function withBackend<Result>({
  location,
  work,
  now,
  auditRetentionDays,
}: {
  location: StoreLocation;
  work: (backend: Backend | undefined, where: string) => Result | Promise<Result>;
  /** The clock of approvals, sessions and memory; default `Date.now`. */
  now?: () => number;
  /** The audit log's minimum retention (`audit purge`); default the backend's (400 days). */
  auditRetentionDays?: number | undefined;
}): Promise<Result> {
  const where = describeStoreLocation(location);
  const clock = {
    ...(now === undefined ? {} : { now }),
    ...(auditRetentionDays === undefined ? {} : { auditRetentionDays }),
  };
  let backend: Backend;
  if (location.dialect === 'sqlite') {
    if (!existsSync(location.path)) return work(undefined, where);
    const { openSqliteBackend } = await import('../../store/sqlite/open-sqlite-backend.js');
    backend = openSqliteBackend({ path: location.path, ...clock });
  } else {
    if (!(await postgresStoreExists(location))) return work(undefined, where);
    backend = await openPostgresStore({ location, poolSize: 2, ...clock });
  }
  try {
    return await work(backend, where);
  } finally {
    await backend.close();
  }
}

/**
 * Hands a server run whose approvals are all decided back to the nodes of a
 * PostgreSQL store (`arbiter serve --store`): free to claim, every node woken;
 * whichever claims it continues it, as after a decision through the HTTP API.
 * Answers whether a run was waiting there.
 *
 * @example
 * await requeueServerRun({ location, runId });
 */
export async function requeueServerRun({
  location,
  runId,
}: {
  location: StoreLocation & { dialect: 'postgres' };
  runId: string;
}): Promise<boolean> {
  const backend = await openPostgresStore({ location, poolSize: 1 });
  try {
    return (await backend.serverRuns.requeue(runId, { wake: true })) !== 'not_waiting';
  } finally {
    await backend.close();
  }
}

/**
 * The PostgreSQL backend an operational command works on: a pool of its
 * own, one try per connection within `storeConnectTimeoutMs` (no retries
 * for a database that restarts: a command is run again), and a failure to
 * open said in one line naming the flag or variable (`storeFailure`). pg is
 * loaded only here.
 */
async function openPostgresStore({
  location,
  poolSize,
  now,
  auditRetentionDays,
}: {
  location: StoreLocation & { dialect: 'postgres' };
  poolSize: number;
  now?: () => number;
  auditRetentionDays?: number;
}): Promise<PostgresBackend> {
  const { openPostgresBackend } = await import('../../store/postgres/open-postgres-backend.js');
  try {
    return await openPostgresBackend({
      connectionString: location.url,
      poolSize,
      connectWaitMs: 0,
      connectTimeoutMs: storeConnectTimeoutMs,
      ...(now === undefined ? {} : { now }),
      ...(auditRetentionDays === undefined ? {} : { auditRetentionDays }),
    });
  } catch (error) {
    throw storeFailure({ error, location });
  }
}

/**
 * The server's record of a run on the backend `withBackend` opened (whose
 * run it is, in which tenant: what `arbiter serve` wrote, including the
 * runs of MCP clients and other frameworks' loops); undefined for a run the
 * server never saw (one the command line ran, the demo's).
 *
 * @example
 * const run = await serverRunOf({ backend, runId: approval.runId });
 */
export async function serverRunOf({
  backend,
  runId,
}: {
  backend: Backend;
  runId: string;
}): Promise<ServerRun | undefined> {
  if (isPostgresBackend(backend)) return backend.serverRuns.find(runId);
  if (!isSqliteBackend(backend)) return undefined;
  const { ServerRuns } = await import('../../store/sqlite/sqlite-server-runs.js');
  return new ServerRuns({ database: backend.database }).find(runId);
}

function isPostgresBackend(backend: Backend): backend is PostgresBackend {
  return 'serverRuns' in backend;
}

function isSqliteBackend(backend: Backend): backend is SqliteBackend {
  return 'database' in backend;
}
