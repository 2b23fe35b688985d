export { createStreamAssembler, mapFinishReason, type StreamAssembler } from './assemble-stream.js';
export type { FinishReason, Model, ModelRequest, ModelResponse, TokenUsage } from './model.js';
export { hasModelConfig, type ModelConfig, readModelConfig } from './model-config.js';
export { OpenAiModel, type OpenAiModelOptions, parseRetryAfter } from './openai-model.js';
export { type FeedbackIssue, readToolFeedback, type ToolFeedback } from './read-tool-feedback.js';
export type { Script, ScriptStep, ScriptTurn } from './script.js';
export { ScriptedModel } from './scripted-model.js';
