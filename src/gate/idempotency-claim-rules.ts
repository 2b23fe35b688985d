/**
 * What a claimed idempotency key answers the next call that presents it,
 * decided over the key as a record (`StoredClaim`), whatever store holds it.
 *
 * @module
 */
import type { ToolOutcome } from '../core/tool-outcome.js';
import type { OriginalCall } from './audit-log.js';
import type { IdempotencyClaim, ResolveUnknownRequest } from './idempotency-store.js';

/** A key as a store holds it once someone claimed it. */
export interface StoredClaim {
  /** The user who claimed it (for a tenant-wide key, the one whose outcome it is). */
  readonly claimantUserId: string;
  readonly status: 'claimed' | 'completed';
  /** The call that claimed it. */
  readonly original: OriginalCall;
  /** The process that claimed it (`processOwner` of the store that wrote it). */
  readonly owner: string;
  /** The outcome of a completed key. */
  readonly outcome: ToolOutcome | undefined;
  /** When it was claimed (ms), or re-taken. */
  readonly claimedAt: number;
}

/** How a call of this process that holds a key ended, for the calls waiting on it. */
export type Settled = { kind: 'completed'; outcome: ToolOutcome } | { kind: 'released' } | { kind: 'unknown' };

/**
 * What a key someone already claimed answers `claimantUserId`:
 *
 * - another user's tenant-wide key: `claimed_by_another_user`, with nothing
 *   of that user's outcome;
 * - a completed key: its first outcome;
 * - a key claimed by another process, or by this one and no longer in
 *   flight, or longer ago than `staleAfterMs`: `outcome_unknown`, marked
 *   `ownerMayBeRunning` while its owner may still be executing it (another
 *   process that may be alive, and the claim younger than `staleAfterMs`):
 *   reconciling it then could run the call twice;
 * - a key a call of this process is executing: that call's outcome, waiting
 *   for it until the key would be stale; undefined when that call released
 *   the key (claim it again).
 *
 * @example
 * const answer = await answerExistingClaim({ claim, claimantUserId, thisProcess, ownerMayBeAlive, running, now, staleAfterMs });
 * if (answer !== undefined) return answer;
 */
export async function answerExistingClaim({
  claim,
  claimantUserId,
  thisProcess,
  ownerMayBeAlive,
  running,
  now,
  staleAfterMs,
}: {
  claim: StoredClaim;
  claimantUserId: string;
  /** The owner this process writes into the keys it claims. */
  thisProcess: string;
  /** Whether another process, named by the owner it wrote, may still be alive. */
  ownerMayBeAlive: (owner: string) => boolean;
  /** The call of this process in flight with this key, if there is one. */
  running: Promise<Settled> | undefined;
  now: number;
  staleAfterMs: number;
}): Promise<IdempotencyClaim | undefined> {
  const { original } = claim;
  if (claim.claimantUserId !== claimantUserId) return { status: 'claimed_by_another_user', original };
  if (claim.status === 'completed') return { status: 'completed', outcome: claim.outcome as ToolOutcome, original };
  const age = now - claim.claimedAt;
  const unknown = { status: 'outcome_unknown', claimedAt: claim.claimedAt, original } as const;
  if (age >= staleAfterMs) return unknown;
  if (claim.owner !== thisProcess) {
    return ownerMayBeAlive(claim.owner) ? { ...unknown, ownerMayBeRunning: true } : unknown;
  }
  if (running === undefined) return unknown;
  const settled = await waitAtMost(running, staleAfterMs - age);
  if (settled.kind === 'completed') return { status: 'completed', outcome: settled.outcome, original };
  if (settled.kind === 'unknown') return unknown;
  return undefined;
}

/**
 * The `claimedAt` a re-taken key gets: now, and strictly after the claim
 * it replaces, so a second resolver of the same read matches nothing.
 *
 * @example
 * retakenClaimedAt({ unknown, now: Date.now() });
 */
export function retakenClaimedAt({ unknown, now }: Pick<ResolveUnknownRequest, 'unknown'> & { now: number }): number {
  return Math.max(now, Number(unknown.claimedAt) + 1);
}

async function waitAtMost(running: Promise<Settled>, milliseconds: number): Promise<Settled> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Settled>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'unknown' }), Math.max(0, milliseconds));
  });
  try {
    return await Promise.race([running, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
