import { describe, expect, it } from 'vitest';
import { claimIdempotencyKey } from './claim-idempotency-key.js';
import type { IdempotencyClaim, IdempotencyClaimRequest } from './idempotency-store.js';
import { gatedCallFixture } from './test-support/gated-call-fixture.js';

const keyed = { idempotencyKey: (args: Record<string, unknown>) => `refund:${String(args.order_id)}` };
const original = { runId: 'run_0', toolCallId: 'call_0' };

function store(claim: IdempotencyClaim, seen: IdempotencyClaimRequest[] = []) {
  return {
    claim: async (request: IdempotencyClaimRequest) => {
      seen.push(request);
      return claim;
    },
  };
}

describe('claimIdempotencyKey', () => {
  it('claims nothing without a store or without a key', async () => {
    const { runtime, call } = gatedCallFixture({ tool: keyed });
    expect(await claimIdempotencyKey(runtime, call)).toBeUndefined();
    const unkeyed = gatedCallFixture({
      runtime: { idempotency: store({ status: 'outcome_unknown', claimedAt: 0, original }) },
    });
    expect(await claimIdempotencyKey(unkeyed.runtime, unkeyed.call)).toBeUndefined();
  });

  it('claims the key for the principal and hands back the claim', async () => {
    const seen: IdempotencyClaimRequest[] = [];
    const claimed = { status: 'claimed' as const, complete: () => {}, release: () => {}, abandon: () => {} };
    const { runtime, call } = gatedCallFixture({ tool: keyed, runtime: { idempotency: store(claimed, seen) } });
    expect(await claimIdempotencyKey(runtime, call)).toBe(claimed);
    expect(seen[0]).toMatchObject({
      key: 'refund:SO20260901',
      claimant: { tenantId: 'shop', userId: 'C1001' },
      scope: 'principal',
    });
  });

  it('audits a replay, and refuses another user’s key or an unknown outcome', async () => {
    const completed = { status: 'completed' as const, outcome: { ok: true as const, data: 1 }, original };
    const replay = gatedCallFixture({ tool: keyed, runtime: { idempotency: store(completed) } });
    expect(await claimIdempotencyKey(replay.runtime, replay.call)).toBe(completed);
    expect(replay.audited[0]).toMatchObject({ outcome: 'replayed:ok', replayOf: original });

    const other = gatedCallFixture({
      tool: keyed,
      runtime: { idempotency: store({ status: 'claimed_by_another_user', original }) },
    });
    expect(await claimIdempotencyKey(other.runtime, other.call)).toMatchObject({
      status: 'refused',
      error: { code: 'claimed_by_another_user' },
    });
    const unknown = gatedCallFixture({
      tool: keyed,
      runtime: { idempotency: store({ status: 'outcome_unknown', claimedAt: 0, original }) },
    });
    expect(await claimIdempotencyKey(unknown.runtime, unknown.call)).toMatchObject({
      error: { code: 'outcome_unknown' },
    });
  });
});
