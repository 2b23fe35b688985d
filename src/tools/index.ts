export type { JsonSchema } from '../core/json-schema.js';
export type { Locale } from '../core/locale.js';
export type { ToolErrorPayload, ToolOutcome, ValidationIssueSummary } from '../core/tool-outcome.js';
export type { ToolSpec } from '../core/tool-spec.js';
export { defineTool } from './define-tool.js';
export { fromOpenAiTool, type OpenAiFunctionTool } from './from-openai-tool.js';
export { type RegisteredTool, ToolRegistry, type ToolSet } from './tool-registry.js';
export type {
  BoundParameter,
  DataScope,
  IdempotencyScope,
  PrincipalField,
  ReconcileAnswer,
  SideEffect,
  ToolContext,
  ToolDefinition,
  ToolProgress,
} from './tool-types.js';
export { untrustedErrorSource, untrustedSource } from './untrusted-source.js';
