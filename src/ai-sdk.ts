/**
 * @module
 * `@arbiter-runtime/core/ai-sdk`: every AI SDK provider as arbiter's
 * `Model`. `aiSdkModel(languageModel)` takes a provider's language model of
 * spec V3 (AI SDK 6 providers, `@ai-sdk/*@3`) or V4 (AI SDK 7 providers);
 * retries and fallback (`ResilientModel`), streaming, parallel tool calls,
 * strict tools, usage and prices, and thinking kept across tool calls all
 * hold through it. `ai` and the providers are optional peer dependencies:
 * this entry imports none of them (only the application does), and the
 * root entry never reaches this one.
 *
 * @example
 * import { anthropic } from '@ai-sdk/anthropic';
 * import { runAgent } from '@arbiter-runtime/core';
 * import { aiSdkModel } from '@arbiter-runtime/core/ai-sdk';
 *
 * const result = await runAgent({ model: aiSdkModel(anthropic('claude-sonnet-4-5')), tools, messages });
 *
 * And arbiter's gate inside the AI SDK's own loop: `arbiterTools(registry,
 * options)` is a `ToolSet` for `generateText`, `streamText`, `ToolLoopAgent`
 * and `useChat`, every call validated, gated, approved by arbiter, run once
 * and audited.
 *
 * @example
 * import { arbiterTools } from '@arbiter-runtime/core/ai-sdk';
 * const tools = arbiterTools(registry, { principal, approvals: server.approvals, gate });
 */

// The AI SDK model (aiSdkModel and its configuration).
export {
  type AiSdkLanguageModel,
  AiSdkModel,
  type AiSdkModelOptions,
  aiSdkModel,
  type ConfiguredProvider,
  createProviderModel,
  providerPackages,
  providerVariable,
  readConfiguredProvider,
  type SpecProviderOptions,
} from './models/ai-sdk/index.js';

// arbiter's gate inside the AI SDK's loop (arbiterTools)

export {
  type AiSdkCallOptions,
  type ArbiterAiSdkTool,
  type ArbiterAiSdkToolSet,
  type ArbiterInputSchema,
  arbiterTools,
} from './adapters/ai-sdk/index.js';
export type {
  ArbiterApprovalRequest,
  ArbiterLoopOptions,
  ArbiterToolResult,
  ConversationSessions,
  ExternalApprovals,
  ExternalRunRecords,
} from './adapters/index.js';
