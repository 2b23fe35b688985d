import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import type { JsonSchema } from '../core/json-schema.js';
import type { Locale } from '../core/locale.js';
import { ToolDefinitionError } from '../errors/tool-definition-error.js';
import { compileArgumentNormalizer } from './compile-argument-normalizer.js';
import { createIssueBuilder } from './create-issue-builder.js';
import { findUnsupportedPattern } from './find-unsupported-pattern.js';
import { linearRegExp } from './linear-reg-exp.js';
import { schemaGuide } from './schema-guide.js';
import { isSchemaObject } from './schema-resolver.js';
import type { ValidationIssue } from './validation-issue.js';

/**
 * Checks one call's arguments; an empty array means they are valid, and
 * then they are what `execute` receives: defaults filled in and unknown keys
 * dropped where the schema says so (see `compileArgumentNormalizer`), in place.
 */
export type ToolValidator = (args: unknown) => readonly ValidationIssue[];

const noIssues: readonly ValidationIssue[] = Object.freeze([]);
const noIssueErrors: readonly ErrorObject[] = Object.freeze([]);

// ajv-formats is CommonJS: under NodeNext its default import is the module object, under bundlers the plugin.
const addFormats = ((formatsPlugin as unknown as { default?: unknown }).default ??
  formatsPlugin) as typeof formatsPlugin.default;

let sharedAjv: Ajv2020 | undefined;

/**
 * The ajv instance arbiter validates with: JSON Schema 2020-12, every error
 * reported (`allErrors`), unknown keywords tolerated (`strict: false`, real
 * tool schemas carry vendor keywords), formats from ajv-formats, each schema
 * checked against the meta-schema when compiled, and `pattern`s matched in
 * linear time by RE2 (see `linearRegExp`) so no third-party pattern can
 * stall validation.
 *
 * @example
 * const ajv = createAjv();
 * const registry = new ToolRegistry({ ajv });
 */
export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: false,
    verbose: true,
    validateSchema: true,
    code: { regExp: linearRegExp },
  });
  addFormats(ajv);
  return ajv;
}

/**
 * Compiles a tool's parameter schema once into a validator that returns
 * every problem with a call's arguments as model-facing issues. The valid
 * path is the compiled ajv function and a shared empty array; valid
 * arguments are then brought, in place, to what `execute` receives: each
 * `default` fills its absent property, and unknown keys are dropped from the
 * objects at `stripUnknownAt` (where a Standard Schema's library drops them,
 * see `unknownKeysStripped`). Where the schema has neither, nothing is done.
 *
 * Throws `ToolDefinitionError` when the schema is not a valid JSON Schema
 * 2020-12 object schema, or when a `pattern` (or `patternProperties` key)
 * uses what a linear-time engine cannot match: lookaround, backreferences.
 *
 * @example
 * const validate = compileToolValidator({ schema: applyRefund.parameters, toolName: 'apply_refund' });
 * const issues = validate({ order_id: 12345 });
 * if (issues.length > 0) return formatValidationMessage({ toolName: 'apply_refund', issues });
 */
export function compileToolValidator({
  schema,
  toolName,
  locale = 'en',
  ajv,
  stripUnknownAt,
}: {
  schema: JsonSchema;
  toolName: string;
  locale?: Locale;
  ajv?: Ajv2020;
  /** Paths (keys from the root) of the object schemas whose unknown keys are dropped, not kept. Default: none. */
  stripUnknownAt?: readonly (readonly string[])[];
}): ToolValidator {
  if (!isSchemaObject(schema) || schema['type'] !== 'object') {
    throw new ToolDefinitionError({
      toolName,
      message: `tool "${toolName}": parameters must be a JSON Schema object with "type": "object" at the root, got ${describeRoot(schema)}`,
    });
  }
  const unsupported = findUnsupportedPattern(schema);
  if (unsupported !== undefined) {
    throw new ToolDefinitionError({
      toolName,
      message: `tool "${toolName}": the pattern ${JSON.stringify(unsupported.pattern)} at parameters${unsupported.schemaPath} cannot be matched in linear time (${unsupported.reason}); lookahead, lookbehind and backreferences are not supported`,
    });
  }
  const compiler = ajv ?? defaultAjv();
  let validate: ValidateFunction;
  try {
    validate = compiler.compile(schema);
  } catch (error) {
    throw new ToolDefinitionError({
      toolName,
      message: `tool "${toolName}": parameters are not a valid JSON Schema 2020-12: ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    });
  } finally {
    // The shared instance must not keep every schema ever compiled (nor refuse a second schema with the same $id).
    if (ajv === undefined) compiler.removeSchema(schema);
  }
  // Re-checking a call with a refused value moved to another argument leaves the errors being described alone
  // (ajv gives every run its own errors array); it needs every error of a run, so not under `allErrors: false`.
  const check =
    compiler.opts.allErrors === true
      ? (args: Record<string, unknown>) => (validate(args) ? noIssueErrors : (validate.errors ?? noIssueErrors))
      : undefined;
  const toIssues = createIssueBuilder({
    guide: schemaGuide(schema),
    toolName,
    locale,
    ...(check === undefined ? {} : { check }),
  });
  const normalize = compileArgumentNormalizer({ schema, ...(stripUnknownAt === undefined ? {} : { stripUnknownAt }) });
  if (normalize === undefined) return (args) => (validate(args) ? noIssues : toIssues(validate.errors ?? [], args));
  return (args) => {
    if (!validate(args)) return toIssues(validate.errors ?? [], args);
    if (typeof args === 'object' && args !== null && !Array.isArray(args)) normalize(args as Record<string, unknown>);
    return noIssues;
  };
}

function defaultAjv(): Ajv2020 {
  if (sharedAjv === undefined) sharedAjv = createAjv();
  return sharedAjv;
}

function describeRoot(schema: unknown): string {
  if (!isSchemaObject(schema)) return Array.isArray(schema) ? 'an array' : (JSON.stringify(schema) ?? typeof schema);
  return schema['type'] === undefined ? 'no "type"' : `"type": ${JSON.stringify(schema['type'])}`;
}
