import { randomUUID } from 'node:crypto';
import type { Awaitable } from '../core/awaitable.js';
import type { HistoryRelease } from '../core/call-history.js';

/** How long a reservation lasts without renewal: a killed holder blocks its principal at most this long. */
export const historyReservationLeaseMs = 30_000;

/** The shortest and longest wait between two tries of a taken reservation. */
const firstRetryMs = 5;
const longestRetryMs = 250;

/**
 * What one dialect supplies for history reservations: three statements on
 * the `history_reservations` table (migration 19 in both dialects). The
 * rules (who may take a row, when it lapses, who may renew or drop it) are
 * `reserveHistoryInStore`'s, and the same for every dialect.
 */
export interface HistoryReservationStatements {
  /**
   * Inserts (`key`, `holder`) expiring `leaseMs` from now, or overwrites the
   * row of `key` only when it has expired; true when the row is now
   * `holder`'s. Both times on the database's clock.
   */
  take(row: { key: string; holder: string; leaseMs: number }): Awaitable<boolean>;
  /** Sets `key`'s row to expire `leaseMs` from now (the database's clock) when `holder` still holds it. */
  renew(row: { key: string; holder: string; leaseMs: number }): Awaitable<unknown>;
  /** Deletes `key`'s row when `holder` still holds it (never a row another holder took after a lapse). */
  drop(row: { key: string; holder: string }): Awaitable<unknown>;
}

/**
 * The SQL both dialects run, with their placeholders and the database's
 * clock as `STORE_NOW` (`onStoreClock`): the same statements, so a rule of
 * the table cannot differ between SQLite and PostgreSQL, and no process's
 * clock decides when another's reservation lapsed.
 *
 * @example
 * database.prepare(historyReservationSql.take((name) => `@${name}`)).run({ key, holder, expiresAt, now });
 */
export const historyReservationSql = {
  take: (placeholder: Placeholder): string =>
    `INSERT INTO history_reservations (principal_key, holder, expires_at)
     VALUES (${placeholder('key')}, ${placeholder('holder')}, STORE_NOW + ${placeholder('leaseMs')})
     ON CONFLICT (principal_key) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
     WHERE history_reservations.expires_at <= STORE_NOW`,
  renew: (placeholder: Placeholder): string =>
    `UPDATE history_reservations SET expires_at = STORE_NOW + ${placeholder('leaseMs')}
     WHERE principal_key = ${placeholder('key')} AND holder = ${placeholder('holder')}`,
  drop: (placeholder: Placeholder): string =>
    `DELETE FROM history_reservations WHERE principal_key = ${placeholder('key')} AND holder = ${placeholder('holder')}`,
} as const;

/** A statement's parameters, by name. */
export type HistoryReservationParameter = 'key' | 'holder' | 'leaseMs';

/** How a dialect writes a named parameter: `@key` in SQLite, `$1` in PostgreSQL (`postgresParameter`). */
type Placeholder = (name: HistoryReservationParameter) => string;

/**
 * PostgreSQL's positional placeholder of a parameter: values go in the
 * order key, holder, leaseMs.
 *
 * @example
 * historyReservationSql.drop(postgresParameter); // … WHERE principal_key = $1 AND holder = $2
 */
export const postgresParameter: Placeholder = (name) => `$${name === 'key' ? 1 : name === 'holder' ? 2 : 3}`;

/**
 * Reserves `key`'s history in a store shared by several processes: tries
 * `take` until it succeeds (backing off from 5 to 250 ms while another
 * holder has it), then renews the reservation every third of the lease
 * until the returned function drops it. A holder that dies stops renewing;
 * its row lapses `leaseMs` after its last renewal and the next taker
 * overwrites it, so a kill never blocks the principal for good. Dropping
 * names the holder, so a holder whose row lapsed and was taken cannot
 * delete its successor's.
 *
 * @example
 * const release = await reserveHistoryInStore({ statements, key: 'shop\u0000C1001' });
 * try { ... } finally { await release(); }
 */
export async function reserveHistoryInStore({
  statements,
  key,
  leaseMs = historyReservationLeaseMs,
}: {
  statements: HistoryReservationStatements;
  key: string;
  /** How long the reservation lasts after each renewal, on the database's clock. */
  leaseMs?: number;
}): Promise<HistoryRelease> {
  // As JSON: a principal key joins tenant and user with U+0000, which PostgreSQL's text cannot hold.
  const storedKey = JSON.stringify(key);
  const holder = randomUUID();
  let waitMs = firstRetryMs;
  for (;;) {
    if (await statements.take({ key: storedKey, holder, leaseMs })) break;
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    waitMs = Math.min(longestRetryMs, waitMs * 2);
  }
  let renewing: Promise<unknown> = Promise.resolve();
  const renewal = setInterval(
    () => {
      renewing = Promise.resolve(statements.renew({ key: storedKey, holder, leaseMs })).catch(() => {});
    },
    Math.max(1, Math.floor(leaseMs / 3)),
  );
  renewal.unref();
  let released: Promise<void> | undefined;
  return () => {
    released ??= (async () => {
      clearInterval(renewal);
      await renewing;
      await statements.drop({ key: storedKey, holder });
    })();
    return released;
  };
}
