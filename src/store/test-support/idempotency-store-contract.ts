import { describe, expect, it } from 'vitest';
import type { ToolOutcome } from '../../core/tool-outcome.js';
import type { IdempotencyClaim, IdempotencyClaimRequest, IdempotencyStore } from '../../gate/idempotency-store.js';
import { type CreateBackend, openFreshBackends } from './contract-backend.js';

const refund: ToolOutcome = { ok: true, data: { refund_id: 'RF1' } };
const shopper = { tenantId: 'shop', userId: 'C1001' };

function claimOf(overrides: Partial<IdempotencyClaimRequest> = {}): IdempotencyClaimRequest {
  return {
    key: 'refund:SO20260901:2000',
    claimant: shopper,
    runId: 'run-1',
    toolCallId: 'call_1',
    tool: 'apply_refund',
    ...overrides,
  };
}

function claimed(claim: IdempotencyClaim): Extract<IdempotencyClaim, { status: 'claimed' }> {
  if (claim.status !== 'claimed') throw new Error(`expected the key to be claimed, got ${claim.status}`);
  return claim;
}

/**
 * The behaviour every `IdempotencyStore` must have: the first claim of a
 * key executes, a completed key answers its first outcome, a released key
 * is free again, an abandoned one reads as `outcome_unknown`, and a key
 * never crosses a tenant nor (by default) a user; a tenant-wide key never
 * hands one user another's outcome.
 *
 * @example
 * describeIdempotencyStoreContract('SqliteIdempotencyStore', ({ now }) => openSqliteBackend({ path: ':memory:', now }));
 */
export function describeIdempotencyStoreContract(
  name: string,
  createBackend: CreateBackend<{ readonly idempotency: IdempotencyStore }>,
): void {
  describe(`${name} (IdempotencyStore contract)`, () => {
    const open = openFreshBackends(createBackend);

    it('lets the first claim execute, then answers its outcome without executing again', async () => {
      const { backend } = await open();
      const { idempotency } = backend;
      await claimed(await idempotency.claim(claimOf())).complete(refund);
      const replay = await idempotency.claim(claimOf({ runId: 'run-2', toolCallId: 'call_9' }));
      expect(replay).toEqual({
        status: 'completed',
        outcome: refund,
        original: { runId: 'run-1', toolCallId: 'call_1' },
      });
      expect(await idempotency.claim(claimOf({ runId: 'run-3' }))).toMatchObject({ status: 'completed' });
    });

    it('keeps the outcome of a failed call like any other', async () => {
      const { backend } = await open();
      const failed: ToolOutcome = {
        ok: false,
        error: { code: 'refund_limit', message: 'over the limit', retryable: false },
      };
      await claimed(await backend.idempotency.claim(claimOf())).complete(failed);
      expect(await backend.idempotency.claim(claimOf())).toMatchObject({ status: 'completed', outcome: failed });
    });

    it('frees a released key, so the next claim executes', async () => {
      const { backend } = await open();
      await claimed(await backend.idempotency.claim(claimOf())).release();
      const next = claimed(await backend.idempotency.claim(claimOf({ runId: 'run-2' })));
      await next.complete(refund);
      expect(await backend.idempotency.claim(claimOf())).toMatchObject({
        status: 'completed',
        original: { runId: 'run-2' },
      });
    });

    it('answers outcome_unknown, never claimed, for a key abandoned without an outcome', async () => {
      const { backend, clock } = await open();
      const claimedAt = clock.now;
      await claimed(await backend.idempotency.claim(claimOf())).abandon();
      clock.now += 1_000;
      expect(await backend.idempotency.claim(claimOf({ runId: 'run-2' }))).toEqual({
        status: 'outcome_unknown',
        claimedAt,
        original: { runId: 'run-1', toolCallId: 'call_1' },
      });
    });

    it('never lets a duplicate claim execute while the first is still executing', async () => {
      const { backend } = await open();
      const first = claimed(await backend.idempotency.claim(claimOf()));
      const duplicate = backend.idempotency.claim(claimOf({ toolCallId: 'call_2' }));
      await first.complete(refund);
      const answer = await duplicate;
      expect(['completed', 'outcome_unknown']).toContain(answer.status);
      if (answer.status === 'completed') expect(answer.outcome).toEqual(refund);
    });

    it('answers a duplicate of a call this process is executing with its outcome once it ends, or lets it claim a released key', async () => {
      const { backend } = await open();
      const first = claimed(await backend.idempotency.claim(claimOf()));
      const duplicate = backend.idempotency.claim(claimOf({ toolCallId: 'call_2' }));
      await new Promise((resolve) => setTimeout(resolve, 20));
      await first.complete(refund);
      expect(await duplicate).toEqual({
        status: 'completed',
        outcome: refund,
        original: { runId: 'run-1', toolCallId: 'call_1' },
      });
      const released = claimed(await backend.idempotency.claim(claimOf({ key: 'refund:SO20260902:100' })));
      const next = backend.idempotency.claim(claimOf({ key: 'refund:SO20260902:100', toolCallId: 'call_3' }));
      await new Promise((resolve) => setTimeout(resolve, 20));
      await released.release();
      expect((await next).status).toBe('claimed');
    });

    it('answers outcome_unknown, without waiting, for a call of this process claimed longer ago than the stale threshold', async () => {
      const { backend, clock } = await open();
      const claimedAt = clock.now;
      const first = claimed(await backend.idempotency.claim(claimOf()));
      clock.now += 10 * 60 * 1000;
      expect(await backend.idempotency.claim(claimOf({ toolCallId: 'call_2' }))).toEqual({
        status: 'outcome_unknown',
        claimedAt,
        original: { runId: 'run-1', toolCallId: 'call_1' },
      });
      await first.complete(refund);
    });

    it("gives another tenant's user with the same id, and another user of the tenant, their own key", async () => {
      const { backend } = await open();
      const { idempotency } = backend;
      await claimed(await idempotency.claim(claimOf())).complete(refund);
      const colleague = await idempotency.claim(claimOf({ claimant: { tenantId: 'shop', userId: 'C1002' } }));
      expect(colleague.status).toBe('claimed');
      const namesake = await idempotency.claim(claimOf({ claimant: { tenantId: 'bank', userId: 'C1001' } }));
      expect(namesake.status).toBe('claimed');
      const other: ToolOutcome = { ok: true, data: { refund_id: 'RF2' } };
      await claimed(namesake).complete(other);
      expect(await idempotency.claim(claimOf({ claimant: { tenantId: 'bank', userId: 'C1001' } }))).toMatchObject({
        status: 'completed',
        outcome: other,
      });
      expect(await idempotency.claim(claimOf())).toMatchObject({ status: 'completed', outcome: refund });
    });

    it('shares a tenant-wide key across the tenant without handing one user the outcome of another', async () => {
      const { backend } = await open();
      const { idempotency } = backend;
      const tenantWide = (userId: string, tenantId = 'shop') =>
        claimOf({ scope: 'tenant', claimant: { tenantId, userId }, runId: `run-${userId}` });
      await claimed(await idempotency.claim(tenantWide('C1001'))).complete(refund);
      const colleague = await idempotency.claim(tenantWide('C1002'));
      expect(colleague).toEqual({
        status: 'claimed_by_another_user',
        original: { runId: 'run-C1001', toolCallId: 'call_1' },
      });
      expect(colleague).not.toHaveProperty('outcome');
      expect(await idempotency.claim(tenantWide('C1001'))).toMatchObject({ status: 'completed', outcome: refund });
      expect((await idempotency.claim(tenantWide('C1001', 'bank'))).status).toBe('claimed');
    });

    it('refuses a colleague a tenant-wide key that is still being executed, without waiting for it', async () => {
      const { backend } = await open();
      const first = claimed(
        await backend.idempotency.claim(claimOf({ scope: 'tenant', claimant: { tenantId: 'shop', userId: 'C1001' } })),
      );
      const colleague = await backend.idempotency.claim(
        claimOf({ scope: 'tenant', claimant: { tenantId: 'shop', userId: 'C1002' }, runId: 'run-2' }),
      );
      expect(colleague.status).toBe('claimed_by_another_user');
      await first.complete(refund);
    });

    it('keeps the keys of calls without a principal in one scope of their own', async () => {
      const { backend } = await open();
      const anonymous = { tenantId: '', userId: '' };
      await claimed(await backend.idempotency.claim(claimOf({ claimant: anonymous }))).complete(refund);
      expect(await backend.idempotency.claim(claimOf({ claimant: anonymous }))).toMatchObject({ status: 'completed' });
      expect((await backend.idempotency.claim(claimOf())).status).toBe('claimed');
    });
  });
}
