import type { IdempotencyClaimRequest, ResolveUnknownRequest } from '../../gate/idempotency-store.js';

/**
 * Where a key lives, the same on every backend: its tenant, its user (`''`
 * for a tenant-wide key) and the tool's own key. Two principals of one
 * tenant never share a `principal`-scoped key; no two tenants share any key.
 */
export interface ScopedKey {
  readonly tenantId: string;
  readonly scopeUserId: string;
  readonly key: string;
}

/**
 * The row a claim request names, as both dialects store it.
 *
 * @example
 * const { tenantId, scopeUserId, key } = scopeIdempotencyKey(request);
 */
export function scopeIdempotencyKey({
  key,
  claimant,
  scope = 'principal',
}: Pick<IdempotencyClaimRequest, 'key' | 'claimant' | 'scope'>): ScopedKey {
  return { tenantId: claimant.tenantId, scopeUserId: scope === 'tenant' ? '' : claimant.userId, key };
}

/** A scoped key as one string: the key of a process's map of calls in flight. */
export function inFlightKeyOf({ tenantId, scopeUserId, key }: ScopedKey): string {
  return `${tenantId}\u0000${scopeUserId}\u0000${key}`;
}

/**
 * What an `outcome_unknown` claim must still be for `resolveUnknown` to
 * change it, in the order both dialects' guarded statements bind them:
 * tenant, scope user, key, claimant, the original run and call, and
 * `claimed_at` as read (a re-take moves it forward, so a second resolver
 * of the same read matches nothing).
 *
 * @example
 * `UPDATE idempotency_claims SET … WHERE tenant_id = ? AND scope_user_id = ? AND key = ? AND claimant_user_id = ?
 *    AND status = 'claimed' AND run_id = ? AND tool_call_id = ? AND claimed_at = ?`
 */
export function unknownClaimGuard(request: ResolveUnknownRequest): readonly (string | number)[] {
  const scoped = scopeIdempotencyKey(request);
  const { unknown } = request;
  return [
    scoped.tenantId,
    scoped.scopeUserId,
    scoped.key,
    request.claimant.userId,
    unknown.original.runId,
    unknown.original.toolCallId,
    unknown.claimedAt,
  ];
}
