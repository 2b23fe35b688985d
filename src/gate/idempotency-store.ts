import type { ToolOutcome } from '../core/tool-outcome.js';
import type { IdempotencyScope } from '../tools/tool-types.js';
import type { OriginalCall } from './audit-log.js';

/** Who claims a key: the principal's tenant and user, `''` and `''` for a call without a principal. */
export interface IdempotencyClaimant {
  readonly tenantId: string;
  readonly userId: string;
}

/** The answer to "may I execute the call with this key?". */
export type IdempotencyClaim =
  /**
   * First with this key: execute, then `complete` with the outcome. `release`
   * when the tool refused and changed nothing (the key is free again);
   * `abandon` when the call ended without a known outcome (the key stays
   * claimed and reads as `outcome_unknown` from then on).
   */
  | {
      readonly status: 'claimed';
      complete(outcome: ToolOutcome): Promise<void> | void;
      release(): Promise<void> | void;
      abandon(): Promise<void> | void;
    }
  /** The claimant executed this before: here is the first outcome; do not execute again. */
  | { readonly status: 'completed'; readonly outcome: ToolOutcome; readonly original: OriginalCall }
  /**
   * Claimed before but no outcome was recorded (the process died, or gave
   * up on the call): never executed again automatically. `ownerMayBeRunning`:
   * the process that claimed it may still be executing it (alive on this
   * machine, or on another one and younger than the store's stale age), so
   * reconciling now could run the call twice; a tool's `reconcile` is not asked.
   */
  | {
      readonly status: 'outcome_unknown';
      readonly claimedAt: number;
      readonly original: OriginalCall;
      readonly ownerMayBeRunning?: true;
    }
  /**
   * A tenant-wide key another user of the tenant claimed: do not execute
   * again, and do not show this claimant that user's outcome.
   */
  | { readonly status: 'claimed_by_another_user'; readonly original: OriginalCall };

export interface IdempotencyClaimRequest {
  /** The tool's own key, from business fields (`refund:SO20260901:2000`). */
  readonly key: string;
  readonly claimant: IdempotencyClaimant;
  /**
   * `principal` (default): the key is the claimant's own (tenant + user).
   * `tenant`: one key for the claimant's tenant (see `IdempotencyScope`).
   */
  readonly scope?: IdempotencyScope;
  readonly runId: string;
  readonly toolCallId: string;
  readonly tool: string;
  /** The fingerprint of the tool's definition the call runs under (a pinned, third-party tool), kept with the claim. */
  readonly toolFingerprint?: string | undefined;
}

/**
 * Settles a key left `outcome_unknown` once the tool's `reconcile` found
 * out: `completed` records the reconciled outcome, `retake` claims the key
 * afresh for this call. Either happens only if the key is still exactly as
 * `unknown` read it (the same earlier call, still without an outcome), so of
 * two racing reconcilers one wins; the other gets the key's new state.
 */
export interface ResolveUnknownRequest extends IdempotencyClaimRequest {
  /** The `outcome_unknown` answer this resolution is about. */
  readonly unknown: Extract<IdempotencyClaim, { status: 'outcome_unknown' }>;
  readonly resolution: { readonly kind: 'completed'; readonly outcome: ToolOutcome } | { readonly kind: 'retake' };
}

/**
 * Claims idempotency keys with a unique constraint before execution, so a
 * side effect happens at most once per key, across retries, concurrent
 * calls and restarts. A key never crosses a tenant, and by default never
 * crosses a user: the same key string of another principal is another key,
 * so a replay can only hand a caller an outcome of its own.
 *
 * @example
 * const claim = await store.claim({
 *   key: 'refund:SO20260901:2000', claimant: { tenantId: 'shop', userId: 'C1001' }, runId, toolCallId, tool: 'apply_refund',
 * });
 * if (claim.status === 'claimed') await claim.complete(await execute());
 */
export interface IdempotencyStore {
  claim(request: IdempotencyClaimRequest): Promise<IdempotencyClaim>;
  /**
   * Settles an `outcome_unknown` key after reconciliation (see
   * `ResolveUnknownRequest`). Returns `completed` with the recorded outcome
   * or `claimed` when this caller won; otherwise the key's state as `claim`
   * reads it now. A store without it leaves unknown outcomes unknown.
   */
  resolveUnknown?(request: ResolveUnknownRequest): Promise<IdempotencyClaim>;
}
