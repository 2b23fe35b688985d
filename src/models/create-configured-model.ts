import type { Model } from './model.js';
import { type ModelApi, readModelApi } from './model-api.js';
import { fallbackModelVariable, type ModelConfig, readModelConfig } from './model-config.js';
import type { ModelDecision } from './model-decision.js';
import { OpenAiModel, type OpenAiModelOptions } from './openai-model.js';
import { OpenAiResponsesModel } from './openai-responses-model.js';
import { ResilientModel } from './resilient-model.js';
import type { RetryPolicyOptions } from './retry-policy.js';

export { fallbackModelVariable } from './model-config.js';

/** The endpoint the environment configures, and the fallback model it names, if any. */
export interface ConfiguredEndpoint extends ModelConfig {
  /** From `ARBITER_FALLBACK_MODEL`: the same endpoint and key, another model id. */
  readonly fallbackModel: string | undefined;
  /** From `ARBITER_API`: `chat` (default) or `responses`. */
  readonly api: ModelApi;
}

/**
 * Reads the configured endpoint: `readModelConfig` (`ARBITER_BASE_URL`,
 * `ARBITER_API_KEY`, `ARBITER_MODEL`, a `ModelError` naming what is
 * missing), the optional `ARBITER_FALLBACK_MODEL`, and `ARBITER_API`
 * (`chat` or `responses`; another value is a `ConfigurationError`).
 *
 * @example
 * const { baseUrl, model, fallbackModel } = readConfiguredEndpoint();
 */
export function readConfiguredEndpoint(
  env: Readonly<Record<string, string | undefined>> = process.env,
): ConfiguredEndpoint {
  const fallback = env[fallbackModelVariable]?.trim() ?? '';
  const config = readModelConfig(env);
  return { ...config, fallbackModel: fallback === '' ? undefined : fallback, api: readModelApi(env) };
}

/**
 * The model every command that talks to a real endpoint uses (`arbiter
 * serve --model openai`, `arbiter eval --model configured`): an
 * `OpenAiModel` (or, with `ARBITER_API=responses`, an
 * `OpenAiResponsesModel`) on the endpoint the environment configures, wrapped in a
 * `ResilientModel`, so network errors, timeouts and 5xx are retried with
 * backoff, 429 waits its Retry-After, and, with `ARBITER_FALLBACK_MODEL`,
 * a model that keeps failing hands over to the fallback. Every retry
 * decision goes to `onDecision` and to each call's own `onDecision` (the
 * server's failure log line lists them). A missing variable is a
 * `ModelError` naming it, never a value.
 *
 * @example
 * const model = createConfiguredModel();
 * const response = await model.generate({ messages, tools });
 */
export function createConfiguredModel({
  env = process.env,
  policy,
  onDecision,
  timeoutMs,
  fetch,
}: {
  env?: Readonly<Record<string, string | undefined>>;
  /** Tries, waiting budget and backoff; default `retryPolicy()`'s (3 tries, 10 s of waiting at most). */
  policy?: RetryPolicyOptions;
  /** Told of every retry, wait, fallback and give-up, of every call. */
  onDecision?: (decision: ModelDecision) => void;
  /** Per try: the longest wait for the response to start, and between two chunks. Default 60 000. */
  timeoutMs?: number;
  /** A `fetch` to use instead of the global one (proxies, tests). */
  fetch?: OpenAiModelOptions['fetch'];
} = {}): ResilientModel {
  const { fallbackModel, api, ...config } = readConfiguredEndpoint(env);
  const shared = {
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(fetch === undefined ? {} : { fetch }),
  };
  const client = (model: string): Model =>
    api === 'responses'
      ? new OpenAiResponsesModel({ ...config, ...shared, model })
      : new OpenAiModel({ ...config, ...shared, model });
  return new ResilientModel({
    primary: client(config.model),
    ...(fallbackModel === undefined ? {} : { fallback: client(fallbackModel) }),
    ...(policy === undefined ? {} : { policy }),
    ...(onDecision === undefined ? {} : { onDecision }),
  });
}
