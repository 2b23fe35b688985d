export { compileToolValidator, createAjv, type ToolValidator } from './compile-tool-validator.js';
export { formatValidationMessage } from './format-validation-message.js';
export { argumentsText, maxArgumentDepth, nestingDepth } from './nesting-depth.js';
export { type ParsedToolArguments, parseToolArguments } from './parse-tool-arguments.js';
export { unknownToolIssue } from './unknown-tool-issue.js';
export { type NullReading, type ToolCallValidation, validateToolCall } from './validate-tool-call.js';
export type { ValidationIssue, ValidationIssueCode, ValidationLayer } from './validation-issue.js';
