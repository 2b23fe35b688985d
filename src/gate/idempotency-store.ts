import type { ToolOutcome } from '../tools/tool-types.js';

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
  /** Executed before: here is the first outcome; do not execute again. */
  | { readonly status: 'completed'; readonly outcome: ToolOutcome }
  /** Claimed before but no outcome was recorded (the process died): never executed again automatically. */
  | { readonly status: 'outcome_unknown'; readonly claimedAt: number };

/**
 * Claims idempotency keys with a unique constraint before execution, so a
 * side effect happens at most once per key, across retries, concurrent
 * calls and restarts.
 *
 * @example
 * const claim = await store.claim({ key: 'refund:SO20260901:2000', runId, toolCallId, tool: 'apply_refund' });
 * if (claim.status === 'claimed') await claim.complete(await execute());
 */
export interface IdempotencyStore {
  claim(request: {
    readonly key: string;
    readonly runId: string;
    readonly toolCallId: string;
    readonly tool: string;
  }): Promise<IdempotencyClaim>;
}
