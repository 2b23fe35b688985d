import { describe, expect, it, vi } from 'vitest';
import type { CallHistorySource, HistoryRelease } from '../../core/call-history.js';
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
      // Leases lapse on the database's clock: the suite's clock cannot move them, a holder must fall silent.
      const leaseMs = 3000;
      const { backend } = await open({ historyLeaseMs: leaseMs });
      // A holder killed mid-call never renews: its renewal timer is frozen from the moment it reserves.
      vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
      try {
        const dead = await reserve(backend.audit, 'shop\u0000C1001');
        const taken = Date.now();
        const waiting = reserve(backend.audit, 'shop\u0000C1001');
        expect(await within(waiting, 300)).toBe('waiting');
        const successor = await within(waiting, leaseMs + 5000);
        expect(successor).toBeTypeOf('function');
        // Not before the lease ran out on the database's clock (a little slack for the two clocks' readings).
        expect(Date.now() - taken).toBeGreaterThanOrEqual(leaseMs - 50);
        // The dead holder's late give-back (a node that only stalled) leaves the successor's row alone.
        await dead();
        const after = reserve(backend.audit, 'shop\u0000C1001');
        expect(await within(after, 300)).toBe('waiting');
        await (successor as HistoryRelease)();
        await (await after)();
      } finally {
        vi.useRealTimers();
      }
    });

    it('keeps a live holder past its lease: it renews on the database clock, whatever the suite clock says', async () => {
      const leaseMs = 900;
      const { backend, clock } = await open({ historyLeaseMs: leaseMs });
      const holder = await reserve(backend.audit, 'shop\u0000C1001');
      // The process clock leaps a day: the reservation is still the holder's while it renews.
      clock.now += 24 * 60 * 60 * 1000;
      const waiting = reserve(backend.audit, 'shop\u0000C1001');
      expect(await within(waiting, leaseMs * 3)).toBe('waiting');
      await holder();
      expect(await within(waiting, 5000)).toBeTypeOf('function');
      await (await waiting)();
    });
  });
}
