import type { TokenUsage } from '../core/run-usage.js';
import { ModelError } from '../errors/model-error.js';
import { abortableSleep, type Sleep } from './abortable-sleep.js';
import type { Model, ModelRequest, ModelResponse } from './model.js';
import type { ModelDecision } from './model-decision.js';
import { defaultModelSemaphore, type ModelSemaphore } from './model-semaphore.js';
import { decideAfterError, type RetryPolicy, type RetryPolicyOptions, retryPolicy } from './retry-policy.js';

export interface ResilientModelOptions {
  /** The model every call goes to first. */
  readonly primary: Model;
  /** Where a call goes when the primary keeps failing with a kind in `policy.fallbackOn`. Not itself a `ResilientModel`. */
  readonly fallback?: Model;
  /** Tries, waiting budget, backoff and fallback kinds; see `retryPolicy`. */
  readonly policy?: RetryPolicyOptions;
  /** The limit on model calls in flight; default the process-wide `defaultModelSemaphore`. */
  readonly semaphore?: ModelSemaphore;
  /** Told of every decision, for every call (process-level logs, metrics); `request.onDecision` is told too. */
  readonly onDecision?: (decision: ModelDecision) => void;
  /** Waits between tries; injectable for tests. Must reject with the signal's reason on abort. */
  readonly sleep?: Sleep;
  /** Appended as a user message when a truncated tool call cannot get a higher output limit. */
  readonly shorterOutputHint?: string;
}

const defaultShorterOutputHint =
  'Your last reply was cut off at the output limit while writing tool call arguments. ' +
  'Call the tool again with shorter arguments, or make fewer calls at once.';

/**
 * A `Model` that survives the network: it wraps a primary model (and an
 * optional fallback) and applies arbiter's failure table to every call.
 *
 * - network errors, timeouts, 5xx and malformed streams: retried after
 *   exponential backoff with full jitter (at most `maxAttempts` tries per
 *   model and `maxTotalDelayMs` of waiting per call);
 * - 429: waits the Retry-After (never less) and halves the process-wide
 *   concurrency for a while instead of hammering;
 * - 5xx (and malformed streams) that keep failing: switches to `fallback`;
 * - 400/401/403/404: never retried, the `ModelError` (which names endpoint
 *   and model, never the key) goes straight to the caller;
 * - `finish_reason: length` with tool calls (truncated arguments): tried
 *   once more with a higher `maxOutputTokens`, or, when it cannot go
 *   higher, with a request for shorter output; usage of the discarded
 *   response is added to the returned one.
 *
 * Every decision is reported to `onDecision` (constructor and request).
 * Each try holds one semaphore slot; waits hold none. An abort of
 * `request.signal` ends any wait at once and rejects with the signal's reason.
 *
 * @example
 * const model = new ResilientModel({
 *   primary: new OpenAiModel({ baseUrl, apiKey, model: 'gpt-4o' }),
 *   fallback: new OpenAiModel({ baseUrl, apiKey, model: 'gpt-4o-mini' }),
 *   onDecision: (decision) => console.log(decision.kind, decision.model, decision.delayMs),
 * });
 * const response = await model.generate({ messages, tools, signal });
 */
export class ResilientModel implements Model {
  readonly name: string;
  readonly #models: readonly Model[];
  readonly #policy: RetryPolicy;
  readonly #semaphore: ModelSemaphore;
  readonly #onDecision: ((decision: ModelDecision) => void) | undefined;
  readonly #sleep: Sleep;
  readonly #shorterOutputHint: string;

  constructor({
    primary,
    fallback,
    policy = {},
    semaphore = defaultModelSemaphore,
    onDecision,
    sleep = abortableSleep,
    shorterOutputHint = defaultShorterOutputHint,
  }: ResilientModelOptions) {
    this.name = primary.name;
    this.#models = fallback === undefined ? [primary] : [primary, fallback];
    this.#policy = retryPolicy(policy);
    this.#semaphore = semaphore;
    this.#onDecision = onDecision;
    this.#sleep = sleep;
    this.#shorterOutputHint = shorterOutputHint;
  }

  /** True when any of its models sends tools in strict mode, so optional arguments may arrive as `null`. */
  get strictTools(): boolean {
    return this.#models.some((model) => 'strictTools' in model && model.strictTools === true);
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const { signal, onTextDelta } = request;
    const report = (decision: ModelDecision) => {
      for (const listener of [this.#onDecision, request.onDecision]) {
        try {
          listener?.(decision);
        } catch {
          // A listener is a side channel: its failure must not change the call's outcome.
        }
      }
    };
    let current = request;
    let waitedMs = 0;
    let expanded = false;
    let discardedUsage: TokenUsage | undefined;

    for (const [index, model] of this.#models.entries()) {
      const nextModel = this.#models[index + 1];
      let attempt = 0;
      let failures = 0;
      for (;;) {
        attempt += 1;
        let streamed = false;
        const decision = (
          fields: Partial<ModelDecision> & Pick<ModelDecision, 'kind' | 'errorKind'>,
        ): ModelDecision => ({
          model: model.name,
          attempt,
          delayMs: 0,
          status: undefined,
          reason: undefined,
          nextModel: undefined,
          maxOutputTokens: undefined,
          concurrencyLimit: undefined,
          discardsStreamedText: streamed,
          ...fields,
        });
        let response: ModelResponse;
        try {
          response = await this.#try(model, {
            ...current,
            onTextDelta: (text) => {
              streamed = true;
              onTextDelta?.(text);
            },
          });
        } catch (error) {
          if (signal?.aborted) throw signal.reason;
          if (!ModelError.isInstance(error)) throw error;
          failures += 1;
          const verdict = decideAfterError({
            policy: this.#policy,
            error,
            failures,
            waitedMs,
            canFallBack: nextModel !== undefined,
          });
          const failure = { errorKind: error.kind, status: error.status };
          if (verdict.action === 'give_up') {
            report(decision({ kind: 'give_up', ...failure, reason: verdict.reason }));
            throw error;
          }
          if (verdict.action === 'fallback') {
            report(decision({ kind: 'fallback', ...failure, reason: verdict.reason, nextModel: nextModel?.name }));
            break;
          }
          if (verdict.action === 'wait') {
            const cooldown = Math.max(verdict.delayMs, this.#policy.rateLimitCooldownMs);
            const concurrencyLimit = this.#semaphore.reduce({ forMs: cooldown });
            report(decision({ kind: 'wait', ...failure, delayMs: verdict.delayMs, concurrencyLimit }));
          } else {
            report(decision({ kind: 'retry', ...failure, delayMs: verdict.delayMs }));
          }
          await this.#sleep(verdict.delayMs, signal);
          waitedMs += verdict.delayMs;
          continue;
        }

        if (isTruncatedToolCall(response)) {
          if (expanded) {
            report(decision({ kind: 'give_up', errorKind: 'truncated', reason: 'still_truncated' }));
          } else {
            expanded = true;
            discardedUsage = addUsage(discardedUsage, response.usage);
            current = this.#expandOutput(current);
            report(
              decision({ kind: 'expand_output', errorKind: 'truncated', maxOutputTokens: current.maxOutputTokens }),
            );
            continue;
          }
        }
        return {
          ...response,
          usage: discardedUsage === undefined ? response.usage : addUsage(discardedUsage, response.usage),
          model: response.model ?? model.name,
        };
      }
    }
    // Unreachable: the last model has no fallback, so its loop only returns or throws.
    throw new ModelError({ kind: 'request', message: `no model answered for ${this.name}` });
  }

  async #try(model: Model, request: ModelRequest): Promise<ModelResponse> {
    const release = await this.#semaphore.acquire({ signal: request.signal });
    try {
      // The request's own listener is called by this model, not by a wrapped one.
      const { onDecision: _ignored, ...forwarded } = request;
      return await model.generate(forwarded);
    } finally {
      release();
    }
  }

  /** The one retry of a truncated tool call: a higher output limit, or, at the ceiling, a request to be brief. */
  #expandOutput(request: ModelRequest): ModelRequest {
    const ceiling = this.#policy.maxOutputTokens;
    const limit = request.maxOutputTokens;
    if (limit === undefined) return { ...request, maxOutputTokens: ceiling };
    if (limit < ceiling) return { ...request, maxOutputTokens: Math.min(limit * 2, ceiling) };
    return {
      ...request,
      messages: [...request.messages, { role: 'user', content: this.#shorterOutputHint }],
    };
  }
}

function isTruncatedToolCall(response: ModelResponse): boolean {
  return response.finishReason === 'length' && (response.message.tool_calls?.length ?? 0) > 0;
}

function addUsage(first: TokenUsage | undefined, second: TokenUsage): TokenUsage {
  if (first === undefined) return second;
  const cached =
    first.cachedInputTokens === undefined && second.cachedInputTokens === undefined
      ? undefined
      : (first.cachedInputTokens ?? 0) + (second.cachedInputTokens ?? 0);
  return {
    inputTokens: first.inputTokens + second.inputTokens,
    outputTokens: first.outputTokens + second.outputTokens,
    ...(cached === undefined ? {} : { cachedInputTokens: cached }),
  };
}
