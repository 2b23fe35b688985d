/**
 * @module
 * `@arbiter-runtime/core/openai-agents`: arbiter's gate inside OpenAI
 * Agents' loop (`@openai/agents`, an optional peer: only its types are
 * read here).
 *
 * @example
 * import { arbiterAgentTools } from '@arbiter-runtime/core/openai-agents';
 * const agent = new Agent({ name: 'shop', tools: arbiterAgentTools(registry, { principal, approvals, gate }) });
 */
export type {
  ArbiterApprovalRequest,
  ArbiterLoopOptions,
  ArbiterToolResult,
  ConversationSessions,
  ExternalApprovals,
  ExternalRunRecords,
} from './adapters/index.js';
export { type ArbiterAgentTool, arbiterAgentTools } from './adapters/openai-agents/index.js';
