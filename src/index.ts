/**
 * @module
 * `@arbiter-runtime/core`: the model proposes, code decides. What every
 * application needs: tools and their validation, the loop (`runAgent`,
 * `runSession`, resume after approval, undo), the gate (tiers, rules,
 * approvals, idempotency, audit interfaces), errors, events, the model
 * interface with its retries, context management and the shared vocabulary.
 *
 * The optional parts have entry points of their own:
 * `@arbiter-runtime/core/sqlite` (the embedded stores),
 * `@arbiter-runtime/core/openai` (an OpenAI-compatible endpoint),
 * `@arbiter-runtime/core/server`, `@arbiter-runtime/core/evaluation`,
 * `@arbiter-runtime/core/observe` and `@arbiter-runtime/core/testing`
 * (the scripted model and fixtures). Everything else is internal.
 *
 * @example
 * import { defineTool, runAgent, ToolRegistry } from '@arbiter-runtime/core';
 * const result = await runAgent({ model, tools: new ToolRegistry().register(getTime), messages });
 */

// Context: token counting, compression, redaction, recalled facts pinned into a request.
export {
  type CompressionRecord,
  ContextManager,
  type ContextManagerOptions,
  countConversationTokens,
  countTokens,
  countToolSpecTokens,
  describeFact,
  isWriteToolIn,
  type PinnedState,
  type PreparedRequest,
  type RedactConversationOptions,
  recalledFactsMessage,
  redactConversation,
  type Summarize,
  summarizeWithModel,
  TokenCalibration,
  withRecalledFacts,
} from './context/index.js';
// The shared vocabulary: messages, stop reasons, principal, locale, outcomes, journal, conversation invariants.
export * from './core/index.js';
// Durable execution: the seam an engine adapter implements, and the driver of a run inside an engine.
export * from './durable/index.js';
// Errors: one base class, one marker check.
export { ApprovalResolutionError, type ApprovalResolutionFailure } from './errors/approval-resolution-error.js';
export { ArbiterError } from './errors/arbiter-error.js';
export { AuditRetentionError } from './errors/audit-retention-error.js';
export { ConfigurationError } from './errors/configuration-error.js';
export { FatalToolError } from './errors/fatal-tool-error.js';
export { GateRuleError } from './errors/gate-rule-error.js';
export { InfrastructureError } from './errors/infrastructure-error.js';
export { InputFileError } from './errors/input-file-error.js';
export { InvalidForkPointError } from './errors/invalid-fork-point-error.js';
export { ModelError, type ModelErrorKind } from './errors/model-error.js';
export { RetryableToolError } from './errors/retryable-tool-error.js';
export { type SessionConflict, SessionConflictError } from './errors/session-conflict-error.js';
export { SessionNotFoundError } from './errors/session-not-found-error.js';
export { StoreBusyError } from './errors/store-busy-error.js';
export { ToolDefinitionError } from './errors/tool-definition-error.js';
export { ToolTimeoutError } from './errors/tool-timeout-error.js';
export { UndoError, type UndoFailure } from './errors/undo-error.js';
export type { EventLog, ReadEventsOptions, SynchronousEventLog } from './events/event-log.js';
// Events.
export {
  type AgentEvent,
  type AgentEventBody,
  type AgentEventOf,
  type AgentEventType,
  createEventProjector,
  defaultProgressTable,
  EventBus,
  type EventDraft,
  type EventEnvelope,
  type EventListener,
  type EventProjector,
  type EventProjectorOptions,
  type ExternalEvent,
  type ExternalEventBody,
  type ExternalEventOf,
  type ExternalEventType,
  type GapEventBody,
  type ListenerErrorHandler,
  type ProgressTable,
  persistEvents,
  progressText,
  type RunEmitter,
  type SubscribeOptions,
  type Subscription,
  type ToolErrorStage,
  type ToolRoutingRecord,
} from './events/index.js';
// The gate: tiers, rules, approvals, idempotency, audit.
export {
  type ApprovalBroker,
  type ApprovalDeniedCode,
  type ApprovalRequest,
  type ApprovalState,
  type AuditArchive,
  type AuditDecision,
  type AuditEntry,
  type AuditLog,
  type AuditPurgeResult,
  allowAllGate,
  auditRetentionFloorDays,
  createInlineApprover,
  createTierGate,
  type DecideOptions,
  defaultAuditRetentionDays,
  denyAllApprovals,
  type GateCondition,
  type GateDecision,
  type GateRule,
  type IdempotencyClaim,
  type IdempotencyClaimant,
  type IdempotencyClaimRequest,
  type IdempotencyStore,
  type InlineAnswer,
  MemoryAuditLog,
  type OriginalCall,
  type ToolGate,
} from './gate/index.js';
// The loop.
export {
  type DescribeToolError,
  describeFullError,
  type PendingApproval,
  type ResumeAfterApprovalOptions,
  type ResumeAfterApprovalResult,
  type RunAgentOptions,
  type RunLimits,
  type RunResult,
  type RunSessionOptions,
  resumeAfterApproval,
  runAgent,
  runSession,
  type UndoResult,
  undoToolCall,
} from './loop/index.js';
// Long-term memory: facts per tenant and user, the save_fact / recall_facts tools, hybrid recall.
export * from './memory/index.js';
// Models: the interface every client implements, retries and fallback, prices.
export {
  type Cost,
  costOf,
  defaultModelSemaphore,
  type FinishReason,
  type Model,
  type ModelDecision,
  type ModelDecisionKind,
  type ModelDecisionReason,
  type ModelPrice,
  type ModelRequest,
  type ModelResponse,
  ModelSemaphore,
  type PriceTable,
  ResilientModel,
  type ResilientModelOptions,
  type RetryPolicy,
  type RetryPolicyOptions,
  type RetryVerdict,
  readPriceTable,
  retryPolicy,
  type StopRetryingReason,
} from './models/index.js';
// Tool routing: the right few tools per step from a large set.
export {
  chooseTools,
  DEFAULT_ROUTING_TOP_K,
  isRoutedToolSet,
  type RoutedStep,
  type RoutedToolSet,
  type RoutingOptions,
  routeTools,
  type ToolChoice,
  type ToolScore,
  ToolSearchIndex,
  tokenizeForSearch,
} from './routing/index.js';
// The storage interfaces (the SQLite backend: `@arbiter-runtime/core/sqlite`).
export type {
  ActiveRun,
  ApprovalStore,
  AuditStore,
  Backend,
  BegunRun,
  RunRecord,
  RuntimeStore,
  Session,
  SessionStatus,
  SessionStore,
  SessionSummary,
} from './store/index.js';
// Tools and validation.
export * from './tools/index.js';
export {
  compileToolValidator,
  formatValidationMessage,
  type NullReading,
  type ParsedToolArguments,
  parseToolArguments,
  type ToolCallValidation,
  type ToolValidator,
  type ValidationIssue,
  type ValidationIssueCode,
  type ValidationLayer,
  validateToolCall,
} from './validation/index.js';
