import type { ModelError, ModelErrorKind } from '../errors/model-error.js';
import type { ModelDecisionReason } from './model-decision.js';

export interface RetryPolicyOptions {
  /** Tries per model for one `generate` call, the first one included. Default 3. */
  readonly maxAttempts?: number;
  /** All waiting (backoff and Retry-After) of one `generate` call, across models, in milliseconds. Default 10 000. */
  readonly maxTotalDelayMs?: number;
  /** The backoff ceiling after the first failure; it doubles with each further failure. Default 250. */
  readonly baseDelayMs?: number;
  /** The longest single backoff wait. Default 4 000. */
  readonly maxDelayMs?: number;
  /** How long the concurrency limit stays lowered after a 429 (at least the Retry-After). Default 10 000. */
  readonly rateLimitCooldownMs?: number;
  /** Failure kinds that switch to the fallback model once retrying stops helping. Default `server`, `response`. */
  readonly fallbackOn?: readonly ModelErrorKind[];
  /** The output-token limit for the one retry of a truncated tool call when the request set none. Default 8 192. */
  readonly maxOutputTokens?: number;
  /** Jitter source, a number in [0, 1). Default `Math.random`. */
  readonly random?: () => number;
}

/** A retry policy with every default filled in. */
export type RetryPolicy = { readonly [Key in keyof RetryPolicyOptions]-?: NonNullable<RetryPolicyOptions[Key]> };

/** Why retrying stopped on one model. */
export type StopRetryingReason = Exclude<ModelDecisionReason, 'still_truncated'>;

/** What to do after one failed try. */
export type RetryVerdict =
  /** A transient failure (network, timeout, 5xx, malformed stream): try the same model again after `delayMs`. */
  | { readonly action: 'retry'; readonly delayMs: number }
  /** 429: wait `delayMs` (never less than the Retry-After), lower concurrency, then try again. */
  | { readonly action: 'wait'; readonly delayMs: number }
  /** Stop retrying this model and switch to the fallback. */
  | { readonly action: 'fallback'; readonly reason: StopRetryingReason }
  /** Stop: the error goes to the caller. */
  | { readonly action: 'give_up'; readonly reason: StopRetryingReason };

/**
 * Fills in a retry policy: at most 3 tries per model and 10 s of waiting per
 * call, exponential backoff with full jitter from 250 ms, fallback on 5xx
 * and malformed responses (arbiter's failure table, seed §7.1).
 *
 * @example
 * const policy = retryPolicy({ baseDelayMs: 100, fallbackOn: ['server', 'rate_limited'] });
 */
export function retryPolicy({
  maxAttempts = 3,
  maxTotalDelayMs = 10_000,
  baseDelayMs = 250,
  maxDelayMs = 4_000,
  rateLimitCooldownMs = 10_000,
  fallbackOn = ['server', 'response'],
  maxOutputTokens = 8_192,
  random = Math.random,
}: RetryPolicyOptions = {}): RetryPolicy {
  return {
    maxAttempts: Math.max(1, Math.floor(maxAttempts)),
    maxTotalDelayMs: Math.max(0, maxTotalDelayMs),
    baseDelayMs: Math.max(0, baseDelayMs),
    maxDelayMs: Math.max(0, maxDelayMs),
    rateLimitCooldownMs: Math.max(0, rateLimitCooldownMs),
    fallbackOn,
    maxOutputTokens: Math.max(1, Math.floor(maxOutputTokens)),
    random,
  };
}

/**
 * Decides what follows a failed try, by failure class:
 *
 * | kind | verdict |
 * | --- | --- |
 * | `request`, `authentication` (400/401/403/404) | give up at once: fix the request or the configuration |
 * | `network`, `timeout`, `server`, `response` | retry after full-jitter backoff; a Retry-After is a floor |
 * | `rate_limited` (429) | wait the Retry-After exactly (or backoff with half fixed when absent), lower concurrency |
 *
 * When the tries or the waiting budget run out, a kind listed in
 * `fallbackOn` switches to the fallback model (when there is one); anything
 * else gives up. A Retry-After longer than the budget left is never cut short.
 *
 * @example
 * const verdict = decideAfterError({ policy, error, failures: 1, waitedMs: 0, canFallBack: true });
 * if (verdict.action === 'retry') await sleep(verdict.delayMs);
 */
export function decideAfterError({
  policy,
  error,
  failures,
  waitedMs,
  canFallBack,
}: {
  policy: RetryPolicy;
  error: ModelError;
  /** Failed tries on this model so far, this one included. */
  failures: number;
  /** Milliseconds already waited in this call. */
  waitedMs: number;
  canFallBack: boolean;
}): RetryVerdict {
  const { kind } = error;
  if (kind === 'request' || kind === 'authentication') return { action: 'give_up', reason: 'not_retryable' };
  const stop = (reason: StopRetryingReason): RetryVerdict =>
    canFallBack && policy.fallbackOn.includes(kind) ? { action: 'fallback', reason } : { action: 'give_up', reason };
  if (failures >= policy.maxAttempts) return stop('attempts_exhausted');

  const remaining = policy.maxTotalDelayMs - waitedMs;
  if (remaining <= 0) return stop('wait_budget_exhausted');
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failures - 1));
  const floor = error.retryAfterMs ?? 0;
  if (floor > remaining) return stop('retry_after_too_long');

  if (kind === 'rate_limited') {
    // Without a Retry-After, half the ceiling is fixed so a 429 is never answered at once.
    const backoff = Math.round(ceiling / 2 + policy.random() * (ceiling / 2));
    return { action: 'wait', delayMs: error.retryAfterMs ?? Math.min(backoff, remaining) };
  }
  const jittered = Math.floor(policy.random() * ceiling);
  return { action: 'retry', delayMs: Math.max(floor, Math.min(jittered, remaining)) };
}
