export { ArbiterError } from './arbiter-error.js';
export { FatalToolError } from './fatal-tool-error.js';
export { InfrastructureError } from './infrastructure-error.js';
export { InputFileError } from './input-file-error.js';
export { ModelError, type ModelErrorKind } from './model-error.js';
export { RetryableToolError } from './retryable-tool-error.js';
export { ToolDefinitionError } from './tool-definition-error.js';
export { ToolTimeoutError } from './tool-timeout-error.js';
export { UsageError } from './usage-error.js';
