export type { JsonSchema } from '../core/json-schema.js';
export type { Locale } from '../core/locale.js';
export type { ToolErrorPayload, ToolOutcome, ValidationIssueSummary } from '../core/tool-outcome.js';
export type { ToolSpec } from '../core/tool-spec.js';
export { defineTool } from './define-tool.js';
export type { FieldDisplay } from './field-display.js';
export { fromOpenAiTool, type OpenAiFunctionTool } from './from-openai-tool.js';
export type { JsonSchemaArguments } from './json-schema-arguments.js';
export type {
  StandardJsonSchema,
  StandardJsonSchemaInput,
  StandardJsonSchemaOptions,
  StandardJsonSchemaOutput,
  StandardJsonSchemaProps,
} from './standard-json-schema.js';
export { type RegisteredTool, ToolRegistry, type ToolSet } from './tool-registry.js';
export type {
  BoundParameter,
  BoundParameters,
  DataScope,
  IdempotencyScope,
  PrincipalField,
  ReconcileAnswer,
  SideEffect,
  ToolArguments,
  ToolBehaviour,
  ToolContext,
  ToolDefinition,
  ToolParameters,
  ToolProgress,
  TypedToolDefinition,
} from './tool-types.js';
export { untrustedErrorSource, untrustedSource } from './untrusted-source.js';
