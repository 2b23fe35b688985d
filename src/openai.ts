/**
 * @module
 * `@arbiter-runtime/core/openai`: a model on any OpenAI-compatible
 * chat-completions endpoint, or on OpenAI's Responses API
 * (`OpenAiResponsesModel`, `ARBITER_API=responses`): the clients, the configured model
 * (`ARBITER_BASE_URL`, `ARBITER_API_KEY`, `ARBITER_MODEL`, optionally
 * `ARBITER_FALLBACK_MODEL`, behind the resilient model's retries), the
 * start-up check of the endpoint, and strict-mode tool conversion.
 *
 * @example
 * import { createConfiguredModel } from '@arbiter-runtime/core/openai';
 * const result = await runAgent({ model: createConfiguredModel(), tools, messages });
 */
export {
  type ConfiguredEndpoint,
  checkModelEndpoint,
  createConfiguredModel,
  fallbackModelVariable,
  hasModelConfig,
  type ModelApi,
  type ModelConfig,
  type ModelEndpointCheck,
  modelApiVariable,
  OpenAiModel,
  type OpenAiModelOptions,
  OpenAiResponsesModel,
  type OpenAiResponsesModelOptions,
  readConfiguredEndpoint,
  readModelApi,
  readModelConfig,
  type StrictConversion,
  type StrictToolSpec,
  toStrictTool,
  toStrictTools,
} from './models/index.js';
