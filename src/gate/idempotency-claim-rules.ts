/**
 * What a claimed idempotency key answers the next call that presents it,
 * decided over the key as a record (`StoredClaim`), whatever store holds it.
 *
 * @module
 */
import type { ToolOutcome } from '../core/tool-outcome.js';
import type { OriginalCall } from './audit-log.js';
import type { IdempotencyClaim, ResolveUnknownRequest } from './idempotency-store.js';

/**
 * How long ago, on the store's clock, the owner of a claim in flight last
 * renewed it, and the lease it promised to renew within. Both are read from
 * the store, so no reader's own clock and no process lookup enters the
 * judgement: two containers on one host, or two hosts whose clocks differ,
 * judge a claim alike.
 */
export interface ClaimRenewal {
  /** Milliseconds since the owner last renewed the claim, on the store's clock. */
  readonly silentMs: number;
  /** The owner renews the claim well within this many milliseconds while it executes the call. */
  readonly leaseMs: number;
}

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
  /** When it was claimed (ms, the claimant's clock), or re-taken: it tells one claim of the key from the next. */
  readonly claimedAt: number;
  /**
   * How its owner renews it. Undefined for a claim written before claims
   * were renewed: judged by `ageMs` instead.
   */
  readonly renewal: ClaimRenewal | undefined;
  /** The store's clock at the read minus `claimedAt`: the age of a claim without `renewal`. */
  readonly ageMs: number;
}

/** How a call of this process that holds a key ended, for the calls waiting on it. */
export type Settled = { kind: 'completed'; outcome: ToolOutcome } | { kind: 'released' } | { kind: 'unknown' };

/**
 * Whether the owner of a claim of another process may still be executing
 * its call, judged from the store alone: while it renews the claim within
 * its lease (a renewal on the store's clock), yes; once it has been silent
 * longer than its lease (killed, frozen, cut off, or past the stale age,
 * after which owners stop renewing), no. A claim from before renewals may
 * be until it is `staleAfterMs` old.
 *
 * @example
 * if (!ownerMayBeRunning({ claim, staleAfterMs })) askReconcile();
 */
export function ownerMayBeRunning({ claim, staleAfterMs }: { claim: StoredClaim; staleAfterMs: number }): boolean {
  if (claim.renewal === undefined) return claim.ageMs < staleAfterMs;
  return claim.renewal.silentMs <= claim.renewal.leaseMs;
}

/**
 * What a key someone already claimed answers `claimantUserId`:
 *
 * - another user's tenant-wide key: `claimed_by_another_user`, with nothing
 *   of that user's outcome;
 * - a completed key: its first outcome;
 * - a key claimed by another process: `outcome_unknown`, marked
 *   `ownerMayBeRunning` while its owner renews it (`ownerMayBeRunning`):
 *   reconciling it then could run the call twice;
 * - a key of this process no longer in flight, or claimed longer ago than
 *   `staleAfterMs`: `outcome_unknown`;
 * - a key a call of this process is executing: that call's outcome, waiting
 *   for it until the key would be stale; undefined when that call released
 *   the key (claim it again).
 *
 * @example
 * const answer = await answerExistingClaim({ claim, claimantUserId, thisProcess, running, now, staleAfterMs });
 * if (answer !== undefined) return answer;
 */
export async function answerExistingClaim({
  claim,
  claimantUserId,
  thisProcess,
  running,
  now,
  staleAfterMs,
}: {
  claim: StoredClaim;
  claimantUserId: string;
  /** The owner this process writes into the keys it claims. */
  thisProcess: string;
  /** The call of this process in flight with this key, if there is one. */
  running: Promise<Settled> | undefined;
  /** This process's clock, for the age of its own claims. */
  now: number;
  staleAfterMs: number;
}): Promise<IdempotencyClaim | undefined> {
  const { original } = claim;
  if (claim.claimantUserId !== claimantUserId) return { status: 'claimed_by_another_user', original };
  if (claim.status === 'completed') return { status: 'completed', outcome: claim.outcome as ToolOutcome, original };
  const unknown = { status: 'outcome_unknown', claimedAt: claim.claimedAt, original } as const;
  if (claim.owner !== thisProcess) {
    return ownerMayBeRunning({ claim, staleAfterMs }) ? { ...unknown, ownerMayBeRunning: true } : unknown;
  }
  // This process's own claim: whether its call still runs is known here, and its age is on this process's clock.
  const age = now - claim.claimedAt;
  if (age >= staleAfterMs || running === undefined) return unknown;
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
