/**
 * Arbiter inside DBOS: a run as a registered workflow (workflow id = run
 * id), model turns and gated tool executions as steps, the approval as a
 * message, one run per session at a time through a partitioned queue.
 * Needs `@dbos-inc/dbos-sdk` (an optional peer dependency) and PostgreSQL.
 *
 * @example
 * import { registerDbosAgent } from '@arbiter-runtime/core/dbos';
 *
 * @module
 */
export {
  type DbosAgent,
  type DbosAgentOptions,
  type DbosRunClient,
  dbosRunClient,
  registerDbosAgent,
} from './durable/dbos-agent.js';
export {
  type DurableRunInput,
  type DurableRunSummary,
  type EngineAgentOptions,
  type EngineRunRecords,
  engineLeaseOwner,
} from './durable/run-in-engine.js';
