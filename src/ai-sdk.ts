/**
 * @module
 * `@arbiter-runtime/core/ai-sdk`: arbiter with the AI SDK (an optional
 * peer: nothing here loads `ai` or `@ai-sdk/*`).
 *
 * @example
 * import { arbiterTools } from '@arbiter-runtime/core/ai-sdk';
 * const tools = arbiterTools(registry, { principal, approvals: server.approvals, gate });
 */
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
  ExternalApprovals,
  ExternalRunRecords,
} from './adapters/index.js';
