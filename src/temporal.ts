/**
 * Arbiter inside Temporal: a run as the workflow `arbiterRun` (workflow id
 * = run id) that advances one activity per step (a model turn, a
 * validated and gated tool execution, decided by arbiter inside it), a
 * session's runs one at a time as children of `arbiterSession`, the
 * approval as the `arbiter.approval` signal with the deadline as a timer,
 * messages and tool results kept in arbiter's store by reference so the
 * workflow's history stays small. Needs `@temporalio/worker` and
 * `@temporalio/activity` (workers) and `@temporalio/client` (starting and
 * signalling runs), optional peer dependencies.
 *
 * @example
 * import { temporalActivities, temporalRunClient, temporalWorkflowsPath } from '@arbiter-runtime/core/temporal';
 *
 * @module
 */
export type { AdvanceRequest, RunAdvance, StepReference } from './durable/advance-run.js';
export { type EngineEventLog, openEngineEventLog } from './durable/engine-event-log.js';
export {
  type EngineStepRecords,
  memoryEngineStepRecords,
  type RecordedEntry,
} from './durable/engine-step-records.js';
export { postgresEngineStepRecords } from './durable/postgres-engine-step-records.js';
export {
  type DurableRunInput,
  type DurableRunSummary,
  type EngineAgentOptions,
  type EngineRunClient,
  type EngineRunRecords,
  engineLeaseOwner,
} from './durable/run-in-engine.js';
export {
  type TemporalActivitiesOptions,
  temporalActivities,
  temporalWorkflowsPath,
} from './durable/temporal-agent.js';
export { type TemporalRunClient, temporalRunClient } from './durable/temporal-run-client.js';
export type { ArbiterActivities, ArbiterRunOptions } from './durable/temporal-workflow.js';
