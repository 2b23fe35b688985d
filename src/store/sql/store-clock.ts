import { type SqlStatement, sqlOf } from './sql-program.js';

/**
 * The database's clock in milliseconds since the epoch, as each dialect
 * reads it: PostgreSQL's `clock_timestamp()` (the moment of the statement,
 * one clock for every node), SQLite's `julianday('now')` (one host's clock,
 * the host every process on the file shares). Leases and liveness are
 * measured on it, never on a process's own clock against another's.
 */
export const storeNowMs = {
  sqlite: "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)",
  postgres: '(extract(epoch from clock_timestamp()) * 1000)::bigint',
} as const;

/**
 * A statement whose text names the database's clock as `STORE_NOW`, in
 * each dialect's words.
 *
 * @example
 * const renew = onStoreClock('UPDATE claims SET renewed_at = STORE_NOW WHERE key = $1');
 */
export function onStoreClock(text: string): SqlStatement {
  return sqlOf({
    sqlite: text.replaceAll('STORE_NOW', storeNowMs.sqlite),
    postgres: text.replaceAll('STORE_NOW', storeNowMs.postgres),
  });
}
