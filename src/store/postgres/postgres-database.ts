import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { ConfigurationError } from '../../errors/configuration-error.js';
import { isStoreUnavailable } from '../../util/store-unavailable.js';
import type { NamedStatement } from './named-statement.js';
import { statementShape, type TransactionCounts, transactionCountsOf } from './transaction-counts.js';

/**
 * What one statement returns: its rows, typed by the caller, and how many rows it touched.
 *
 * @example
 * const { rows, rowCount } = await database.query<{ run_id: string }>('SELECT run_id FROM runs');
 */
export interface PostgresResult<Row> {
  readonly rows: Row[];
  readonly rowCount: number;
}

/**
 * Runs statements on one connection: a checked-out client for one
 * operation, or the client of a transaction. A `NamedStatement` is prepared
 * once per connection; a plain string runs unprepared (DDL, one-off SQL).
 *
 * @example
 * await database.transaction(async (query) => {
 *   await query(namedStatement('UPDATE runs SET steps = $1 WHERE run_id = $2'), [3, runId]);
 * });
 */
export type PostgresQuery = <Row>(
  statement: NamedStatement | string,
  values?: readonly unknown[],
) => Promise<PostgresResult<Row>>;

/** The server process of the connection a transaction runs on (what a `NOTIFY` it sends is signed with). */
export interface TransactionConnection {
  readonly processId: number;
}

/**
 * `bigint` columns as JavaScript numbers: every one arbiter has holds a
 * time in milliseconds, a count or a sequence number, far below 2^53.
 * Passed with each query rather than set on `pg.types`, so an application's
 * own pool keeps its parsers.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 && format !== 'binary'
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** A schema name that needs no quoting anywhere (connection options, identifiers, advisory lock keys). */
const schemaPattern = /^[a-z_][a-z0-9_]{0,62}$/;

/** The search path each pooled connection was last given, for pools arbiter did not create. */
const searchPaths = new WeakMap<pg.PoolClient, string>();

/** Connections that already carry arbiter's `'error'` listener. */
const guarded = new WeakSet<pg.PoolClient>();

/** Pools whose every new connection gets arbiter's `'error'` listener (`guardPool`). */
const guardedPools = new WeakSet<pg.Pool>();

/**
 * A checked-out `pg` client has no `'error'` listener of the pool's: a
 * connection the server drops while it is checked out (a restart's 57P01)
 * would emit an unhandled `'error'` and end the process. The failure still
 * reaches the query under way (and the pool destroys the client on release,
 * since it is no longer queryable); this listener only keeps it from being
 * thrown. Once added it stays for the client's whole life.
 */
function guard(client: pg.PoolClient): void {
  if (guarded.has(client)) return;
  guarded.add(client);
  client.on('error', () => {});
}

/**
 * Guards each new connection of `pool` as the pool hands it over (its
 * `'connect'` event), not after the caller's `await`: node-postgres takes
 * the pool's own listener off and resolves the checkout in the middle of
 * the read that ends the connection's startup, and the rest of that read is
 * handled before any awaiting code runs. A server that ends the connection
 * just then (a restart's 57P01 in the same read as its `ReadyForQuery`)
 * would otherwise meet a client with no `'error'` listener and end the
 * process. An application's pool is guarded too: a dropped connection then
 * fails its queries rather than the process.
 */
function guardPool(pool: pg.Pool): void {
  if (guardedPools.has(pool)) return;
  guardedPools.add(pool);
  pool.on('connect', guard);
}

/** How long a checkout waits, in all, for a database that refuses connections (restarting). */
const defaultConnectWaitMs = 30_000;
const firstConnectPauseMs = 50;
const longestConnectPauseMs = 1000;

/**
 * arbiter's connections to PostgreSQL: a `pg.Pool` (its own, or the
 * application's), each connection's `search_path` set to the backend's
 * schema, and the two ways every adapter runs SQL: `query` (one statement
 * on a checked-out connection) and `transaction` (several on one
 * connection, committed together or rolled back).
 *
 * Why `pg` (node-postgres) rather than `postgres` (postgres.js): it is the
 * mainstream client with the most production use, its `pg.Pool` is the
 * pooling an application most likely already has and can hand over,
 * named prepared statements are plain `{ name, text, values }` objects,
 * `LISTEN`/`NOTIFY` on a dedicated client is what the multi-node server
 * will wake followers with, and it is pure JavaScript: no native build.
 *
 * @example
 * const database = PostgresDatabase.open({ connectionString: 'postgres://localhost/arbiter', schema: 'arbiter' });
 * const { rows } = await database.query<{ now: number }>('SELECT 1 AS now');
 * await database.close();
 */
export class PostgresDatabase {
  /** The pool every adapter checks connections out of. */
  readonly pool: pg.Pool;
  /** The schema the tables live in; undefined: the pool's own `search_path`. */
  readonly schema: string | undefined;
  readonly #ownsPool: boolean;
  /** True when connections come from an application's pool, whose `search_path` must be set on checkout. */
  readonly #setSearchPath: boolean;
  readonly #connectWaitMs: number;

  private constructor({
    pool,
    schema,
    ownsPool,
    connectWaitMs,
  }: {
    pool: pg.Pool;
    schema: string | undefined;
    ownsPool: boolean;
    connectWaitMs: number;
  }) {
    guardPool(pool);
    this.pool = pool;
    this.schema = schema;
    this.#ownsPool = ownsPool;
    this.#setSearchPath = !ownsPool && schema !== undefined;
    this.#connectWaitMs = connectWaitMs;
  }

  /**
   * With `connectionString`, a pool of arbiter's own (closed by `close`),
   * whose connections start with `search_path` set to `schema`. With
   * `pool`, the application's (left open by `close`); with `schema` too,
   * each connection's `search_path` is set the first time arbiter checks it
   * out, and again whenever it last served another schema. Either way each
   * connection the pool opens gets a listener for `'error'` when the pool
   * hands it over (`guardPool`), so a server that drops it fails its queries,
   * not the process.
   *
   * @example
   * const database = PostgresDatabase.open({ pool: applicationPool, schema: 'arbiter' });
   */
  static open({
    connectionString,
    pool,
    schema,
    poolSize = 10,
    connectWaitMs = defaultConnectWaitMs,
    connectTimeoutMs,
  }: {
    connectionString?: string;
    pool?: pg.Pool;
    schema?: string;
    /** Connections of arbiter's own pool. Default 10. */
    poolSize?: number;
    /**
     * How long a checkout keeps trying while the database refuses connections
     * (a restart or failover: nothing was sent yet, so trying again is safe).
     * Default 30 s; 0: one try.
     */
    connectWaitMs?: number;
    /** How long one connection attempt of arbiter's own pool may take. Default: no limit (pg's). */
    connectTimeoutMs?: number;
  }): PostgresDatabase {
    if (schema !== undefined && !schemaPattern.test(schema)) {
      throw new ConfigurationError({
        setting: 'schema',
        message: `schema "${schema}" is not a plain lower-case PostgreSQL name (a-z, 0-9, _, at most 63 characters)`,
      });
    }
    if (pool !== undefined) return new PostgresDatabase({ pool, schema, ownsPool: false, connectWaitMs });
    if (connectionString === undefined) {
      throw new ConfigurationError({
        setting: 'connectionString',
        message: 'the PostgreSQL backend needs a connectionString or a pool',
      });
    }
    const options = schema === undefined ? {} : { options: `-c search_path=${pg.escapeIdentifier(schema)}` };
    const timeout = connectTimeoutMs === undefined ? {} : { connectionTimeoutMillis: connectTimeoutMs };
    const ownPool = new pg.Pool({ connectionString, max: poolSize, ...options, ...timeout });
    // An idle connection the server dropped must not take the process down; the next checkout reconnects.
    ownPool.on('error', () => {});
    return new PostgresDatabase({ pool: ownPool, schema, ownsPool: true, connectWaitMs });
  }

  /**
   * Runs one statement on a connection checked out for it (a transaction of
   * its own); `onConnection` learns the connection's server process before
   * the statement is sent (a `NOTIFY` it sends is signed with it).
   */
  async query<Row>(
    statement: NamedStatement | string,
    values: readonly unknown[] = [],
    { onConnection }: { onConnection?: (connection: TransactionConnection) => void } = {},
  ): Promise<PostgresResult<Row>> {
    const client = await this.#checkout();
    try {
      onConnection?.({ processId: (client as unknown as { processID: number | null }).processID ?? 0 });
      const result = await run<Row>(client, statement, values);
      this.#counts.add([shapeOf(statement)]);
      return result;
    } finally {
      client.release();
    }
  }

  /** What this pool's transactions did so far (`TransactionCounts`), for `/metrics`. */
  get transactionCounts(): TransactionCounts {
    return this.#counts;
  }

  get #counts(): TransactionCounts {
    return transactionCountsOf(this.pool);
  }

  /**
   * Runs `work` in one transaction on one connection (READ COMMITTED, with
   * the row locks `work` takes): committed when it resolves, rolled back
   * when it throws, and the error rethrown. When the connection is lost
   * before `COMMIT` is sent (a restart), the server has rolled the
   * transaction back and `work` runs again on a new connection, for up to
   * `connectWaitMs`: `work` must do nothing but run its statements. A
   * connection lost during `COMMIT` is thrown: whether it committed is unknown.
   */
  async transaction<Result>(
    work: (query: PostgresQuery, connection: TransactionConnection) => Promise<Result>,
  ): Promise<Result> {
    const startedAt = performance.now();
    for (;;) {
      const attempt = await this.#attempt(work);
      if (attempt.ok) return attempt.result;
      // Lost before COMMIT was sent: the server rolled it back, so running it again applies it once.
      const retry = attempt.beforeCommit && isStoreUnavailable(attempt.error) && !this.pool.ended;
      if (!retry || performance.now() - startedAt > this.#connectWaitMs) throw attempt.error;
      await sleep(firstConnectPauseMs);
    }
  }

  async #attempt<Result>(
    work: (query: PostgresQuery, connection: TransactionConnection) => Promise<Result>,
  ): Promise<{ ok: true; result: Result } | { ok: false; error: unknown; beforeCommit: boolean }> {
    const client = await this.#checkout();
    let broken = false;
    let beforeCommit = true;
    const shapes: string[] = [];
    try {
      await client.query('BEGIN');
      const processId = (client as unknown as { processID: number | null }).processID ?? 0;
      const result = await work(
        (statement, values = []) => {
          shapes.push(shapeOf(statement));
          return run(client, statement, values);
        },
        { processId },
      );
      beforeCommit = false;
      await client.query('COMMIT');
      this.#counts.add(shapes);
      return { ok: true, result };
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch {
        // The connection is unusable: it goes back to the pool to be destroyed.
        broken = true;
      }
      return { ok: false, error, beforeCommit };
    } finally {
      client.release(broken);
    }
  }

  /** Runs `work` on one checked-out connection, outside any transaction it does not open itself. */
  async withConnection<Result>(work: (query: PostgresQuery) => Promise<Result>): Promise<Result> {
    const client = await this.#checkout();
    try {
      return await work((statement, values = []) => run(client, statement, values));
    } finally {
      client.release();
    }
  }

  /** Ends arbiter's own pool; an application's pool stays open. */
  async close(): Promise<void> {
    if (this.#ownsPool && !this.pool.ended) await this.pool.end();
  }

  /** A connection for one operation; while the database refuses connections (restarting), tried again. */
  async connect(): Promise<pg.PoolClient> {
    const startedAt = performance.now();
    for (let pause = firstConnectPauseMs; ; pause = Math.min(longestConnectPauseMs, pause * 2)) {
      try {
        const client = await this.pool.connect();
        guard(client);
        return client;
      } catch (error) {
        if (!isStoreUnavailable(error) || this.pool.ended) throw error;
        if (performance.now() - startedAt + pause > this.#connectWaitMs) throw error;
        await sleep(pause);
      }
    }
  }

  async #checkout(): Promise<pg.PoolClient> {
    const client = await this.connect();
    if (!this.#setSearchPath || this.schema === undefined || searchPaths.get(client) === this.schema) return client;
    try {
      await client.query(`SET search_path TO ${pg.escapeIdentifier(this.schema)}`);
      searchPaths.set(client, this.schema);
      return client;
    } catch (error) {
      client.release(error instanceof Error ? error : true);
      throw error;
    }
  }
}

function shapeOf(statement: NamedStatement | string): string {
  return statementShape(typeof statement === 'string' ? statement : statement.text);
}

async function run<Row>(
  client: pg.PoolClient,
  statement: NamedStatement | string,
  values: readonly unknown[],
): Promise<PostgresResult<Row>> {
  const config: pg.QueryConfig<unknown[]> =
    typeof statement === 'string'
      ? { text: statement, values: [...values], types }
      : { name: statement.name, text: statement.text, values: [...values], types };
  const result = await client.query(config);
  return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
}
