import { SqlIdempotencyStore } from '../idempotency/sql-idempotency-store.js';
import { PostgresPort } from '../sql/postgres-port.js';
import type { PostgresDatabase } from './postgres-database.js';

/**
 * Idempotency keys in PostgreSQL: `SqlIdempotencyStore` on a pool, where
 * the primary key makes every other insert of a key lose on any node.
 * Calls of this process in flight are shared by every pool to the same
 * database, per schema.
 *
 * @example
 * const { idempotency } = await openPostgresBackend({ connectionString });
 * await runAgent({ model, tools, messages, idempotency });
 */
export class PostgresIdempotencyStore extends SqlIdempotencyStore {
  constructor({
    database,
    staleAfterMs,
    leaseMs,
    now,
  }: {
    database: PostgresDatabase;
    /** After this long a call of this process still running counts as unknown. Default ten minutes. */
    staleAfterMs?: number;
    /** The lease this process renews its keys within while their calls run (see `SqlIdempotencyStore`). Default 15 s. */
    leaseMs?: number;
    now?: () => number;
  }) {
    super({
      port: new PostgresPort(database),
      database: postgresDatabaseName(database),
      namespace: database.schema ?? '',
      ...(staleAfterMs === undefined ? {} : { staleAfterMs }),
      ...(leaseMs === undefined ? {} : { leaseMs }),
      ...(now === undefined ? {} : { now }),
    });
  }
}

/** The database a pool reaches, as the name of its map of calls in flight: every pool to it shares one. */
function postgresDatabaseName({ pool }: PostgresDatabase): string {
  const { connectionString, host, port, database, user } = pool.options;
  return `postgres:${JSON.stringify([connectionString ?? null, host ?? null, port ?? null, database ?? null, user ?? null])}`;
}
