import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ModelError, type ModelErrorKind } from '../errors/model-error.js';
import { decideAfterError, retryPolicy } from './retry-policy.js';

const error = (kind: ModelErrorKind, retryAfterMs?: number) =>
  new ModelError({ kind, message: `${kind} at http://127.0.0.1/v1, model m`, retryAfterMs });

const kinds: readonly ModelErrorKind[] = [
  'network',
  'timeout',
  'rate_limited',
  'server',
  'request',
  'authentication',
  'response',
];

describe('retryPolicy', () => {
  it('fills in the failure table defaults: 3 tries, 10 s of waiting, fallback on 5xx and malformed responses', () => {
    const { random, ...policy } = retryPolicy();
    expect(policy).toEqual({
      maxAttempts: 3,
      maxTotalDelayMs: 10_000,
      baseDelayMs: 250,
      maxDelayMs: 4_000,
      rateLimitCooldownMs: 10_000,
      fallbackOn: ['server', 'response'],
      maxOutputTokens: 8_192,
    });
    expect(random).toBe(Math.random);
  });
});

describe('decideAfterError', () => {
  const policy = retryPolicy({ random: () => 0.5 });
  const decide = (
    failure: ModelError,
    {
      failures = 1,
      waitedMs = 0,
      canFallBack = false,
    }: { failures?: number; waitedMs?: number; canFallBack?: boolean } = {},
  ) => decideAfterError({ policy, error: failure, failures, waitedMs, canFallBack });

  it('never retries a request or configuration error (400/401/403/404), fallback or not', () => {
    for (const kind of ['request', 'authentication'] as const) {
      expect(decide(error(kind), { canFallBack: true })).toEqual({ action: 'give_up', reason: 'not_retryable' });
    }
  });

  it('retries network errors, timeouts, 5xx and malformed streams with full-jitter exponential backoff', () => {
    for (const kind of ['network', 'timeout', 'server', 'response'] as const) {
      expect(decide(error(kind), { failures: 1 })).toEqual({ action: 'retry', delayMs: 125 });
      expect(decide(error(kind), { failures: 2 })).toEqual({ action: 'retry', delayMs: 250 });
    }
  });

  it('caps one backoff wait at maxDelayMs and the sum at maxTotalDelayMs', () => {
    const wide = retryPolicy({ random: () => 0.99, maxAttempts: 20, maxDelayMs: 1_000, maxTotalDelayMs: 1_500 });
    expect(
      decideAfterError({ policy: wide, error: error('network'), failures: 9, waitedMs: 0, canFallBack: false }),
    ).toEqual({ action: 'retry', delayMs: 990 });
    expect(
      decideAfterError({ policy: wide, error: error('network'), failures: 9, waitedMs: 1_200, canFallBack: false }),
    ).toEqual({ action: 'retry', delayMs: 300 });
    expect(
      decideAfterError({ policy: wide, error: error('network'), failures: 9, waitedMs: 1_500, canFallBack: false }),
    ).toEqual({ action: 'give_up', reason: 'wait_budget_exhausted' });
  });

  it('waits exactly the Retry-After of a 429, never less, and without it waits at least half the backoff', () => {
    expect(decide(error('rate_limited', 1_000))).toEqual({ action: 'wait', delayMs: 1_000 });
    const noJitter = retryPolicy({ random: () => 0 });
    expect(
      decideAfterError({
        policy: noJitter,
        error: error('rate_limited'),
        failures: 1,
        waitedMs: 0,
        canFallBack: false,
      }),
    ).toEqual({ action: 'wait', delayMs: 125 });
  });

  it('gives up rather than cut a Retry-After short when it exceeds the waiting budget left', () => {
    expect(decide(error('rate_limited', 30_000))).toEqual({ action: 'give_up', reason: 'retry_after_too_long' });
    expect(decide(error('server', 9_000), { waitedMs: 2_000, canFallBack: true })).toEqual({
      action: 'fallback',
      reason: 'retry_after_too_long',
    });
  });

  it('treats a Retry-After on a 5xx as the least wait', () => {
    expect(decide(error('server', 2_000))).toEqual({ action: 'retry', delayMs: 2_000 });
  });

  it('switches to the fallback once the tries are spent, for the kinds in fallbackOn only', () => {
    expect(decide(error('server'), { failures: 3, canFallBack: true })).toEqual({
      action: 'fallback',
      reason: 'attempts_exhausted',
    });
    expect(decide(error('server'), { failures: 3 })).toEqual({ action: 'give_up', reason: 'attempts_exhausted' });
    expect(decide(error('network'), { failures: 3, canFallBack: true })).toEqual({
      action: 'give_up',
      reason: 'attempts_exhausted',
    });
  });

  it('never waits past the budget except for a Retry-After, and never tries more than maxAttempts', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...kinds),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 12_000 }),
        fc.option(fc.integer({ min: 0, max: 15_000 }), { nil: undefined }),
        fc.double({ min: 0, max: 0.999_999, noNaN: true }),
        fc.boolean(),
        (kind, failures, waitedMs, retryAfterMs, jitter, canFallBack) => {
          const policy = retryPolicy({ random: () => jitter });
          const verdict = decideAfterError({
            policy,
            error: error(kind, retryAfterMs),
            failures,
            waitedMs,
            canFallBack,
          });
          if (verdict.action === 'retry' || verdict.action === 'wait') {
            expect(failures).toBeLessThan(policy.maxAttempts);
            expect(waitedMs + verdict.delayMs).toBeLessThanOrEqual(policy.maxTotalDelayMs);
            expect(verdict.delayMs).toBeGreaterThanOrEqual(retryAfterMs ?? 0);
            expect(verdict.action === 'wait').toBe(kind === 'rate_limited');
          }
          if (verdict.action === 'fallback') {
            expect(canFallBack).toBe(true);
            expect(policy.fallbackOn).toContain(kind);
          }
          if (kind === 'request' || kind === 'authentication') expect(verdict.action).toBe('give_up');
        },
      ),
    );
  });
});
