import type { JsonSchema } from '../../core/json-schema.js';
import type { ValidationIssue } from '../../validation/validation-issue.js';

/**
 * What a model is told after a refused call, one per condition of the
 * correction-yield experiment: `arbiter` (arbiter's message), `field_only`
 * (the field's name, nothing else), `vague` ("Invalid arguments."),
 * `ai_sdk` (the AI SDK's default text: `InvalidToolInputError`'s message
 * over a zod schema, `NoSuchToolError`'s for an unknown tool), `openai_agents`
 * (OpenAI Agents' default text for unparsable input, its `ModelBehaviorError`
 * for an unknown tool), `arbiter_zh` (arbiter's zh-CN message, in a zh-CN
 * conversation).
 */
export const yieldConditions = ['arbiter', 'field_only', 'vague', 'ai_sdk', 'openai_agents', 'arbiter_zh'] as const;

export type YieldCondition = (typeof yieldConditions)[number];

export interface RefusedCall {
  readonly toolName: string;
  readonly rawArguments: string;
  /** arbiter's issues for the call, in English. */
  readonly issues: readonly ValidationIssue[];
  /** arbiter's message for the call in the condition's language. */
  readonly message: string;
  /** The schema of the named tool, when it exists. */
  readonly schema: JsonSchema | undefined;
  /** The names of the mounted tools. */
  readonly toolNames: readonly string[];
}

/**
 * The tool message of a refused call under a condition.
 *
 * @example
 * conditionMessage({ condition: 'vague', refused }); // 'Invalid arguments.'
 */
export function conditionMessage({ condition, refused }: { condition: YieldCondition; refused: RefusedCall }): string {
  const unknownTool = refused.issues.some((issue) => issue.code === 'unknown_tool');
  switch (condition) {
    case 'arbiter':
    case 'arbiter_zh':
      return refused.message;
    case 'vague':
      return 'Invalid arguments.';
    case 'field_only': {
      const fields = refused.issues.map((issue) => issue.path.replace(/^\$\.?/, '')).filter((field) => field !== '');
      if (fields.length === 0) return unknownTool ? `Unknown tool ${refused.toolName}.` : 'The arguments are invalid.';
      return [...new Set(fields)].map((field) => `${field} is invalid.`).join(' ');
    }
    case 'ai_sdk':
      // ai/src/error/no-such-tool-error.ts and invalid-tool-input-error.ts (ai@5–7); the cause is a
      // TypeValidationError whose message carries the value and zod's issues as JSON.
      if (unknownTool) {
        return `Model tried to call unavailable tool '${refused.toolName}'. Available tools: ${refused.toolNames.join(', ')}.`;
      }
      // Arguments that are not JSON fail in safeParseJSON before any schema: a JSONParseError as the cause.
      try {
        JSON.parse(refused.rawArguments);
      } catch (error) {
        return `Invalid input for tool ${refused.toolName}: JSON parsing failed: Text: ${refused.rawArguments}.\nError message: ${error instanceof Error ? error.message : String(error)}`;
      }
      return `Invalid input for tool ${refused.toolName}: Type validation failed: Value: ${JSON.stringify(JSON.parse(refused.rawArguments))}.\nError message: ${JSON.stringify(
        refused.issues.map((issue) => zodIssue(issue, refused)),
        null,
        2,
      )}`;
    case 'openai_agents':
      // @openai/agents-core runner/toolExecution (buildParseErrorResult) and its unknown-tool ModelBehaviorError.
      if (unknownTool) return `Tool ${refused.toolName} not found in agent Assistant.`;
      return 'An error occurred while parsing tool arguments. Please try again with valid JSON.';
  }
}

/** An arbiter issue as zod 4 words it by default (code, path, message), for the AI SDK condition. */
function zodIssue(issue: ValidationIssue, refused: RefusedCall): Record<string, unknown> {
  const path = pathSegments(issue.path);
  const schema = schemaAt(refused.schema, path);
  const value = valueAt(tryParse(refused.rawArguments), path);
  switch (issue.code) {
    case 'missing_field':
    case 'wrong_type': {
      const expected = typeOf(schema);
      const received = issue.code === 'missing_field' ? 'undefined' : receivedType(value);
      return {
        expected,
        code: 'invalid_type',
        path,
        message: `Invalid input: expected ${expected}, received ${received}`,
      };
    }
    case 'invalid_enum':
    case 'invalid_const': {
      const values = Array.isArray(schema?.enum) ? schema.enum : [schema?.const];
      return {
        code: 'invalid_value',
        values,
        path,
        message: `Invalid option: expected one of ${values.map((item) => JSON.stringify(item)).join('|')}`,
      };
    }
    case 'pattern_mismatch':
      return {
        origin: 'string',
        code: 'invalid_format',
        format: 'regex',
        pattern: `/${String(schema?.pattern)}/`,
        path,
        message: `Invalid string: must match pattern /${String(schema?.pattern)}/`,
      };
    case 'invalid_format': {
      const format = String(schema?.format);
      const names: Record<string, string> = {
        email: 'Invalid email address',
        'date-time': 'Invalid ISO datetime',
        date: 'Invalid ISO date',
        uri: 'Invalid URL',
      };
      return { origin: 'string', code: 'invalid_format', format, path, message: names[format] ?? `Invalid ${format}` };
    }
    case 'unknown_field': {
      const key = path.at(-1);
      return {
        code: 'unrecognized_keys',
        keys: [key],
        path: path.slice(0, -1),
        message: `Unrecognized key: "${String(key)}"`,
      };
    }
    case 'too_small':
      return {
        origin: 'number',
        code: 'too_small',
        minimum: schema?.minimum,
        inclusive: true,
        path,
        message: `Too small: expected number to be >=${String(schema?.minimum)}`,
      };
    case 'too_large':
      return {
        origin: 'number',
        code: 'too_big',
        maximum: schema?.maximum,
        inclusive: true,
        path,
        message: `Too big: expected number to be <=${String(schema?.maximum)}`,
      };
    case 'too_short':
      return {
        origin: 'string',
        code: 'too_small',
        minimum: schema?.minLength,
        inclusive: true,
        path,
        message: `Too small: expected string to have >=${String(schema?.minLength)} characters`,
      };
    case 'too_long':
      return {
        origin: 'string',
        code: 'too_big',
        maximum: schema?.maxLength,
        inclusive: true,
        path,
        message: `Too big: expected string to have <=${String(schema?.maxLength)} characters`,
      };
    default:
      return { code: 'custom', path, message: 'Invalid input' };
  }
}

type SchemaNode = JsonSchema & {
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly items?: SchemaNode;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly type?: unknown;
  readonly pattern?: string;
  readonly format?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
};

function pathSegments(path: string): (string | number)[] {
  return (path.replace(/^\$/, '').match(/\.[^.[\]]+|\[\d+\]/g) ?? []).map((segment) =>
    segment.startsWith('[') ? Number(segment.slice(1, -1)) : segment.slice(1),
  );
}

function schemaAt(schema: JsonSchema | undefined, path: readonly (string | number)[]): SchemaNode | undefined {
  let node = schema as SchemaNode | undefined;
  for (const segment of path) {
    node = typeof segment === 'number' ? node?.items : node?.properties?.[segment];
  }
  return node;
}

function valueAt(value: unknown, path: readonly (string | number)[]): unknown {
  let node = value;
  for (const segment of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string | number, unknown>)[segment];
  }
  return node;
}

function typeOf(schema: SchemaNode | undefined): string {
  const type = Array.isArray(schema?.type) ? schema.type[0] : schema?.type;
  if (type === 'integer') return 'int';
  return typeof type === 'string' ? type : 'unknown';
}

function receivedType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
