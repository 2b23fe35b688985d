export type { TokenUsage } from '../core/run-usage.js';
export { stripStrictNulls } from '../validation/strip-strict-nulls.js';
export type { Sleep } from './abortable-sleep.js';
export { createStreamAssembler, mapFinishReason, type StreamAssembler } from './assemble-stream.js';
export { checkModelEndpoint, type ModelEndpointCheck } from './check-model-endpoint.js';
export {
  type ConfiguredEndpoint,
  createConfiguredModel,
  fallbackModelVariable,
  readConfiguredEndpoint,
} from './create-configured-model.js';
export type { FinishReason, Model, ModelRequest, ModelResponse } from './model.js';
export { type ModelApi, modelApiVariable, readModelApi } from './model-api.js';
export { hasModelConfig, type ModelConfig, readModelConfig } from './model-config.js';
export type { ModelDecision, ModelDecisionKind, ModelDecisionReason } from './model-decision.js';
export { defaultModelSemaphore, ModelSemaphore } from './model-semaphore.js';
export { OpenAiModel, type OpenAiModelOptions, parseRetryAfter } from './openai-model.js';
export { OpenAiResponsesModel, type OpenAiResponsesModelOptions } from './openai-responses-model.js';
export { type Cost, costOf, type ModelPrice, type PriceTable, readPriceTable } from './pricing.js';
export { type FeedbackIssue, readToolFeedback, type ToolFeedback } from './read-tool-feedback.js';
export { ResilientModel, type ResilientModelOptions } from './resilient-model.js';
export {
  decideAfterError,
  type RetryPolicy,
  type RetryPolicyOptions,
  type RetryVerdict,
  retryPolicy,
  type StopRetryingReason,
} from './retry-policy.js';
export type { Script, ScriptStep, ScriptTurn } from './script.js';
export { ScriptedModel } from './scripted-model.js';
export { prefixFingerprint } from './stable-prefix.js';
export { type StrictConversion, type StrictToolSpec, toStrictTool, toStrictTools } from './strict-tools.js';
