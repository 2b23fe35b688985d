/**
 * Durable execution: the seam arbiter's loop runs through inside an engine
 * (`DurableSteps`), arbiter's own implementation of it, and the driver that
 * runs a whole run, approvals included, as an engine's workflow. The
 * engines' adapters are their own entries (`@arbiter-runtime/core/dbos`),
 * so the core never loads an engine's package.
 *
 * @module
 */
export type { DurableSteps } from '../core/durable-steps.js';
export { arbiterSteps } from './arbiter-steps.js';
export {
  type ApprovalSignal,
  approvalSignalTopic,
  type RunDurableAgentOptions,
  runDurableAgent,
} from './run-durable-agent.js';
