export { AmbiguousIdError } from './ambiguous-id-error.js';
export {
  ApprovalResolutionError,
  type ApprovalResolutionFailure,
  type ApprovalResolutionProblem,
} from './approval-resolution-error.js';
export { ArbiterError } from './arbiter-error.js';
export { AuditRetentionError } from './audit-retention-error.js';
export { ConfigurationError } from './configuration-error.js';
export { EngineReplayError } from './engine-replay-error.js';
export { FatalToolError } from './fatal-tool-error.js';
export { GateRuleError } from './gate-rule-error.js';
export { HttpError, type HttpErrorStatus } from './http-error.js';
export { InfrastructureError } from './infrastructure-error.js';
export { InputFileError } from './input-file-error.js';
export { InvalidForkPointError } from './invalid-fork-point-error.js';
export { LocalModelError, type LocalModelProblem } from './local-model-error.js';
export { MemoryFactError } from './memory-fact-error.js';
export { ModelError, type ModelErrorKind } from './model-error.js';
export { RetryableToolError } from './retryable-tool-error.js';
export { RunHandedOverError } from './run-handed-over-error.js';
export { ServerConfigError } from './server-config-error.js';
export { type SessionConflict, SessionConflictError } from './session-conflict-error.js';
export { SessionNotFoundError } from './session-not-found-error.js';
export { StoreBusyError } from './store-busy-error.js';
export { ToolDefinitionError } from './tool-definition-error.js';
export { ToolTimeoutError } from './tool-timeout-error.js';
export { UndoError, type UndoFailure, type UndoProblem } from './undo-error.js';
export { UsageError } from './usage-error.js';
