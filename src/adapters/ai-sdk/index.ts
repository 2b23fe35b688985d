/**
 * @module
 * arbiter's gate inside the AI SDK's loop: `arbiterTools`.
 */
export {
  type AiSdkCallOptions,
  type ArbiterAiSdkTool,
  type ArbiterAiSdkToolSet,
  type ArbiterInputSchema,
  arbiterTools,
} from './arbiter-tools.js';
