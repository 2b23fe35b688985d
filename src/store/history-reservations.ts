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
   * Inserts (`key`, `holder`, `expiresAt`), or overwrites the row of `key`
   * only when its `expires_at` is at or before `now`; true when the row is
   * now `holder`'s.
   */
  take(row: { key: string; holder: string; expiresAt: number; now: number }): Awaitable<boolean>;
  /** Sets `expires_at` of `key`'s row when `holder` still holds it. */
  renew(row: { key: string; holder: string; expiresAt: number }): Awaitable<unknown>;
  /** Deletes `key`'s row when `holder` still holds it (never a row another holder took after a lapse). */
  drop(row: { key: string; holder: string }): Awaitable<unknown>;
}

/**
 * The SQL both dialects run, with their placeholders: the same statements,
 * so a rule of the table cannot differ between SQLite and PostgreSQL.
 *
 * @example
 * database.prepare(historyReservationSql.take((name) => `@${name}`)).run({ key, holder, expiresAt, now });
 */
export const historyReservationSql = {
  take: (placeholder: Placeholder): string =>
    `INSERT INTO history_reservations (principal_key, holder, expires_at)
     VALUES (${placeholder('key')}, ${placeholder('holder')}, ${placeholder('expiresAt')})
     ON CONFLICT (principal_key) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
     WHERE history_reservations.expires_at <= ${placeholder('now')}`,
  renew: (placeholder: Placeholder): string =>
    `UPDATE history_reservations SET expires_at = ${placeholder('expiresAt')}
     WHERE principal_key = ${placeholder('key')} AND holder = ${placeholder('holder')}`,
  drop: (placeholder: Placeholder): string =>
    `DELETE FROM history_reservations WHERE principal_key = ${placeholder('key')} AND holder = ${placeholder('holder')}`,
} as const;

/** A statement's parameters, by name. */
export type HistoryReservationParameter = 'key' | 'holder' | 'expiresAt' | 'now';

/** How a dialect writes a named parameter: `@key` in SQLite, `$1` in PostgreSQL (`postgresParameter`). */
type Placeholder = (name: HistoryReservationParameter) => string;

/**
 * PostgreSQL's positional placeholder of a parameter: values go in the
 * order key, holder, expiresAt, now.
 *
 * @example
 * historyReservationSql.drop(postgresParameter); // … WHERE principal_key = $1 AND holder = $2
 */
export const postgresParameter: Placeholder = (name) =>
  `$${name === 'key' ? 1 : name === 'holder' ? 2 : name === 'expiresAt' ? 3 : 4}`;

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
 * const release = await reserveHistoryInStore({ statements, key: 'shop\u0000C1001', now: Date.now });
 * try { ... } finally { await release(); }
 */
export async function reserveHistoryInStore({
  statements,
  key,
  now,
  leaseMs = historyReservationLeaseMs,
}: {
  statements: HistoryReservationStatements;
  key: string;
  /** The clock leases are measured on (the store's). */
  now: () => number;
  leaseMs?: number;
}): Promise<HistoryRelease> {
  // As JSON: a principal key joins tenant and user with U+0000, which PostgreSQL's text cannot hold.
  const storedKey = JSON.stringify(key);
  const holder = randomUUID();
  let waitMs = firstRetryMs;
  for (;;) {
    const at = now();
    if (await statements.take({ key: storedKey, holder, expiresAt: at + leaseMs, now: at })) break;
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    waitMs = Math.min(longestRetryMs, waitMs * 2);
  }
  let renewing: Promise<unknown> = Promise.resolve();
  const renewal = setInterval(
    () => {
      renewing = Promise.resolve(statements.renew({ key: storedKey, holder, expiresAt: now() + leaseMs })).catch(
        () => {},
      );
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
