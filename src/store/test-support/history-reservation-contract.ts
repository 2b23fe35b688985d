import { describe, expect, it } from 'vitest';
import type { CallHistorySource, HistoryRelease } from '../../core/call-history.js';
import { historyReservationLeaseMs } from '../history-reservations.js';
import { type CreateBackend, openFreshBackends } from './contract-backend.js';

/** Resolves with what `promise` settled to, or `'waiting'` when it has not settled within `ms`. */
async function within<Value>(promise: Promise<Value>, ms: number): Promise<Value | 'waiting'> {
  let timer: NodeJS.Timeout | undefined;
  const waiting = new Promise<'waiting'>((resolve) => {
    timer = setTimeout(() => resolve('waiting'), ms);
  });
  try {
    return await Promise.race([promise, waiting]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The behaviour of a store's history reservations (`reserveHistory`), which
 * make a cumulative limit hold across every process on one store: one
 * holder per principal at a time; the next one waits and gets it once the
 * first gives it back; a holder that died (stopped renewing) loses it
 * after the lease; a holder whose reservation lapsed and was taken cannot
 * give back its successor's; other principals never wait. Two backends
 * opened on one store stand for two nodes where the store allows it
 * (`openSecond`).
 *
 * @example
 * describeHistoryReservationContract('SqliteAuditLog', sqlite);
 */
export function describeHistoryReservationContract(
  name: string,
  createBackend: CreateBackend<{ readonly audit: CallHistorySource }>,
): void {
  describe(`${name} (history reservation contract)`, () => {
    const open = openFreshBackends(createBackend);
    const reserve = (audit: CallHistorySource, key: string): Promise<HistoryRelease> => {
      if (audit.reserveHistory === undefined) throw new Error(`${name} has no reserveHistory`);
      return audit.reserveHistory(key);
    };

    it('has one holder per principal; the next waits until the first gives it back', async () => {
      const { backend } = await open();
      const first = await reserve(backend.audit, 'shop\u0000C1001');
      const second = reserve(backend.audit, 'shop\u0000C1001');
      expect(await within(second, 300)).toBe('waiting');
      // Another principal never waits for this one.
      const other = await within(reserve(backend.audit, 'shop\u0000C1002'), 2000);
      expect(other).toBeTypeOf('function');
      await first();
      const next = await within(second, 5000);
      expect(next).toBeTypeOf('function');
      // Giving back twice does nothing: the holder after `next` is not let in by a second call of `first`.
      await first();
      const third = reserve(backend.audit, 'shop\u0000C1001');
      expect(await within(third, 300)).toBe('waiting');
      await (next as HistoryRelease)();
      expect(await within(third, 5000)).toBeTypeOf('function');
      await (await third)();
      await (other as HistoryRelease)();
    });

    it('lets a reservation whose holder died lapse after the lease; the dead holder cannot drop its successor', async () => {
      const { backend, clock } = await open();
      // A holder killed mid-call: it never gives back (its renewals stop with it; here, the clock outruns them).
      const dead = await reserve(backend.audit, 'shop\u0000C1001');
      const waiting = reserve(backend.audit, 'shop\u0000C1001');
      expect(await within(waiting, 300)).toBe('waiting');
      clock.now += historyReservationLeaseMs + 1;
      const successor = await within(waiting, 5000);
      expect(successor).toBeTypeOf('function');
      // The dead holder's late give-back (a node that only stalled) leaves the successor's row alone.
      await dead();
      const after = reserve(backend.audit, 'shop\u0000C1001');
      expect(await within(after, 300)).toBe('waiting');
      await (successor as HistoryRelease)();
      await (await after)();
    });
  });
}
