/**
 * Arbiter inside Restate: a session as a virtual object (one run at a time
 * per session), model turns and gated tool executions in `ctx.run`, the
 * approval as an awakeable that arbiter's approval decision resolves, runs
 * started with arbiter's run id as the idempotency key. Needs
 * `@restatedev/restate-sdk` (workers) and `@restatedev/restate-sdk-clients`
 * (starting and signalling runs), both optional peer dependencies.
 *
 * @example
 * import { restateAgent, restateRunClient } from '@arbiter-runtime/core/restate';
 *
 * @module
 */
export { type RestateAgentOptions, restateAgent } from './durable/restate-agent.js';
export { type RestateRunClient, restateRunClient } from './durable/restate-run-client.js';
export {
  type DurableRunInput,
  type DurableRunSummary,
  type EngineAgentOptions,
  type EngineRunRecords,
  engineLeaseOwner,
} from './durable/run-in-engine.js';
