import { resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { retryWhileBusy } from '../../util/retry-while-busy.js';
import { SqlIdempotencyStore } from '../idempotency/sql-idempotency-store.js';
import { SqlitePort } from '../sql/sqlite-port.js';

/**
 * Idempotency keys in SQLite: `SqlIdempotencyStore` on one better-sqlite3
 * connection (the primary key makes the second insert of a key lose, across
 * processes too). Calls of this process in flight are shared by every
 * connection to the same file, and a key claimed before keys were scoped (a
 * database upgraded through migration 13) reads as `outcome_unknown` for a
 * caller with a principal, as nobody recorded whose call it was; calls
 * without a principal share one scope (tenant and user `''`), where those
 * keys also live on.
 *
 * @example
 * const idempotency = new SqliteIdempotencyStore({ database: store.database });
 * await runAgent({ model, tools, messages, idempotency });
 */
export class SqliteIdempotencyStore extends SqlIdempotencyStore {
  constructor({
    database,
    staleAfterMs,
    leaseMs,
    now,
    busyWaitMs = 0,
  }: {
    database: Database.Database;
    /** After this long a call of this process still running counts as unknown. Default ten minutes. */
    staleAfterMs?: number;
    /** The lease this process renews its keys within while their calls run (see `SqlIdempotencyStore`). Default 15 s. */
    leaseMs?: number;
    now?: () => number;
    /**
     * While another connection holds the database locked, retry a write
     * asynchronously for up to this long (`retryWhileBusy`) instead of
     * failing at once. Default 0: one try, within the connection's busy timeout.
     */
    busyWaitMs?: number;
  }) {
    super({
      port: new SqlitePort(database),
      database: database.memory ? database : `sqlite:${resolve(database.name)}`,
      ...(staleAfterMs === undefined ? {} : { staleAfterMs }),
      ...(leaseMs === undefined ? {} : { leaseMs }),
      ...(now === undefined ? {} : { now }),
      write: (operation, write) =>
        busyWaitMs === 0 ? write() : retryWhileBusy({ operation, waitMs: busyWaitMs, write }),
      keysBeforeScoping: true,
    });
  }
}
