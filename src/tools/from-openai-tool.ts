import type { JsonSchema } from '../core/json-schema.js';
import type { ToolSpec } from '../core/tool-spec.js';
import { FatalToolError } from '../errors/fatal-tool-error.js';
import { ToolDefinitionError } from '../errors/tool-definition-error.js';
import type { SideEffect, ToolDefinition } from './tool-types.js';

/** A tool in OpenAI function-calling format, as most users already have them. */
export interface OpenAiFunctionTool {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description?: string;
    readonly parameters?: JsonSchema;
    readonly strict?: boolean;
  };
}

/**
 * Turns an OpenAI function-calling tool into an arbiter definition. Without
 * an `execute`, the tool can be validated and linted but refuses to run.
 *
 * @example
 * const tools = JSON.parse(readFileSync('tools.json', 'utf8')).map((tool) => fromOpenAiTool(tool));
 */
export function fromOpenAiTool(
  tool: OpenAiFunctionTool | ToolSpec,
  { sideEffect = 'read', execute }: { sideEffect?: SideEffect; execute?: ToolDefinition['execute'] } = {},
): ToolDefinition {
  if (typeof tool !== 'object' || tool === null || tool.type !== 'function' || typeof tool.function !== 'object') {
    throw new ToolDefinitionError({
      message:
        'expected a tool in OpenAI function-calling format: {"type": "function", "function": {"name", "description", "parameters"}}',
    });
  }
  const { name, description = '', parameters = { type: 'object', properties: {} } } = tool.function;
  return {
    name,
    description,
    parameters,
    sideEffect,
    execute:
      execute ??
      (() => {
        throw new FatalToolError({
          code: 'not_executable',
          message: `${name} is declared but has no implementation here.`,
        });
      }),
  };
}
