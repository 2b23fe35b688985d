/**
 * @module
 * arbiter's gate inside OpenAI Agents' loop: `arbiterAgentTools`.
 */
export { type ArbiterAgentTool, arbiterAgentTools } from './arbiter-agent-tools.js';
