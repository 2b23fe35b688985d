export { defineTool } from './define-tool.js';
export { fromOpenAiTool, type OpenAiFunctionTool } from './from-openai-tool.js';
export { type RegisteredTool, ToolRegistry, type ToolSet } from './tool-registry.js';
export type {
  BoundParameter,
  DataScope,
  IdempotencyScope,
  JsonSchema,
  Locale,
  PrincipalField,
  SideEffect,
  ToolContext,
  ToolDefinition,
  ToolErrorPayload,
  ToolOutcome,
  ToolSpec,
  ValidationIssueSummary,
} from './tool-types.js';
