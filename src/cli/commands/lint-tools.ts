import { countToolSpecTokens } from '../../context/count-tokens.js';
import type { JsonSchema } from '../../core/json-schema.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import { InputFileError } from '../../errors/input-file-error.js';
import { ToolDefinitionError } from '../../errors/tool-definition-error.js';
import { fromOpenAiTool } from '../../tools/from-openai-tool.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import { declaredTypes, hasJsonType } from '../../validation/declared-types.js';
import type { CommandResult } from '../cli-output.js';
import { readToolsFile } from '../read-input-file.js';
import { findInstructionsToModel } from './find-instructions-to-model.js';

export type LintWarningCode =
  | 'missing_description'
  | 'format_field_unconstrained'
  | 'name_not_verb_object'
  | 'no_when_not_to_use'
  | 'enum_unsatisfiable'
  | 'identity_from_model'
  | 'instruction_to_model';

export interface LintWarning {
  readonly code: LintWarningCode;
  /** Dotted path of the parameter (`items[].sku`), absent for warnings about the tool itself. */
  readonly path?: string;
  readonly message: string;
}

export interface ToolLintReport {
  readonly name: string;
  /** What the definition costs on every turn it is mounted (see `countToolSpecTokens`). */
  readonly tokens: number;
  readonly warnings: readonly LintWarning[];
}

/**
 * First words accepted as the verb of a verb_object tool name. Not exhaustive:
 * a name the list misses is reported, and the fix is a clearer verb or a
 * longer list.
 */
export const toolNameVerbs: ReadonlySet<string> = new Set(
  (
    'add apply approve archive assign book calculate call cancel change charge check close compare compute confirm ' +
    'convert copy count create delete describe disable download draft edit enable escalate estimate exchange ' +
    'explain export fetch find generate get grant import insert invite issue list load lock lookup mark merge modify ' +
    'move notify open pay place post preview publish query read reject release remove rename reply request reschedule ' +
    'resend reserve reset resolve restore retrieve return revoke run save schedule search send set ship start stop ' +
    'submit subscribe summarize suspend sync tag track transfer translate unlock unsubscribe update upload upsert ' +
    'validate verify write'
  ).split(' '),
);

/**
 * Names of string parameters that carry a format a model cannot guess: ids,
 * numbers, codes, dates and times, contact details. Matched on the property
 * name, case-insensitive, camelCase split into words: `id` or a name ending
 * in `id`, `no`, `number`, `code`, `sku`, `date`, `time`, `at` (`created_at`),
 * `email`, `phone`, `url`, `uuid`, `zip`, `postcode`, `iban` or `currency`,
 * or starting with `id`, `sku`, `date`, `email`, `phone`, `url` or `uuid` as
 * a whole word (`email_address`). Only string-typed parameters are checked,
 * and `enum` or `const` count as a constraint.
 */
const formatFieldName =
  /(^|_)(id|no|number|code|sku|date|time|at|email|phone|url|uuid|zip|postcode|iban|currency)$|^(id|sku|date|email|phone|url|uuid)(_|$)/;

/**
 * Names of parameters that carry the caller's identity: `user_id`,
 * `tenant_id`, `caller_id`, `principal_id` (or camelCase, or without `_id`).
 * In the schema the model sees, such a parameter is chosen by the model, so
 * a prompt can name another customer or tenant; it must be bound from the
 * principal instead (`boundParameters`, which removes it from that schema).
 */
const identityFieldName = /^(user|tenant|caller|principal)(_id)?$/;

/**
 * Words that show a description says when not to use the tool ("not",
 * "never", "instead", "不", "请用"…). Naming another tool of the file counts too.
 */
const whenNotCue = /\bnot\b|n't\b|\bnever\b|\binstead\b|不|请用|改用|勿/i;

/**
 * `arbiter lint --tools FILE`: reports, per tool, what the seeds warn about —
 * parameters without a description, id/date/code-like strings with neither
 * `pattern`/`format` nor `examples`, names that are not verb_object,
 * descriptions that never say when not to use the tool although it has
 * siblings, and parameters carrying the caller's identity (`user_id`,
 * `tenant_id`) that the model would fill instead of the principal — and what
 * each definition costs per turn in tokens. Exit 0 with
 * no warnings, 1 with any, 2 when the file is unreadable or malformed or a
 * tool would be refused at registration (broken schema, duplicate name).
 *
 * @example
 * const result = lintTools({ toolsFile: 'tools.json' });
 * process.stdout.write(result.stdout.join('\n') + '\n');
 * process.exitCode = result.exitCode;
 */
export function lintTools({ toolsFile, json = false }: { toolsFile: string; json?: boolean }): CommandResult {
  let specs: readonly ToolSpec[];
  try {
    const registry = new ToolRegistry();
    for (const tool of readToolsFile({ path: toolsFile })) registry.register(fromOpenAiTool(tool));
    specs = registry.specs;
  } catch (error) {
    if (InputFileError.isInstance(error)) return { exitCode: 2, stdout: [], stderr: [error.message] };
    if (ToolDefinitionError.isInstance(error))
      return { exitCode: 2, stdout: [], stderr: [`${toolsFile}: ${error.message}`] };
    throw error;
  }

  const reports = specs.map((spec) => lintToolSpec({ spec, siblings: specs }));
  const totalTokens = reports.reduce((sum, report) => sum + report.tokens, 0);
  const exitCode = reports.some((report) => report.warnings.length > 0) ? 1 : 0;
  if (json) {
    return {
      exitCode,
      stdout: [JSON.stringify({ tools: reports, totalTokens, toolCount: reports.length })],
      stderr: [],
    };
  }
  const stdout: string[] = [];
  for (const report of reports) {
    stdout.push(`${report.name}: ${report.tokens} tokens per turn`);
    for (const warning of report.warnings) stdout.push(`  warning: ${warning.message}`);
  }
  stdout.push(`total: ${totalTokens} tokens per turn for ${reports.length} ${reports.length === 1 ? 'tool' : 'tools'}`);
  return { exitCode, stdout, stderr: [] };
}

/**
 * Lints one function definition against the others it is sent with.
 *
 * @example
 * lintToolSpec({ spec, siblings: registry.specs }).warnings.map((warning) => warning.message);
 */
export function lintToolSpec({ spec, siblings }: { spec: ToolSpec; siblings: readonly ToolSpec[] }): ToolLintReport {
  const { name, description, parameters } = spec.function;
  const warnings: LintWarning[] = [];
  const nameProblem = verbObjectProblem(name);
  if (nameProblem !== undefined) {
    warnings.push({ code: 'name_not_verb_object', message: `name "${name}" ${nameProblem}` });
  }
  const others = siblings.map((sibling) => sibling.function.name).filter((other) => other !== name);
  if (others.length > 0 && !whenNotCue.test(description) && !others.some((other) => description.includes(other))) {
    const closest = closestSiblings(name, others);
    warnings.push({
      code: 'no_when_not_to_use',
      message:
        `description never says when not to use ${name}: name the sibling tool to use instead ` +
        `(${closest.join(', ')}), e.g. "Not for …: use ${closest[0]}."`,
    });
  }
  for (const what of findInstructionsToModel(description)) {
    warnings.push({
      code: 'instruction_to_model',
      message: `description ${what}: a description says what the tool does, never what the model must do (a prompt injection?)`,
    });
  }
  for (const parameter of walkParameters(parameters, '')) warnings.push(...lintParameter(parameter));
  return { name, tokens: countToolSpecTokens(spec), warnings };
}

function verbObjectProblem(name: string): string | undefined {
  const example = 'e.g. "query_order"';
  if (!/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(name)) return `is not lowercase snake_case verb_object, ${example}`;
  const [verb, ...object] = name.split('_');
  if (object.length === 0) return `is one word; name the action and its object, ${example}`;
  if (verb === undefined || !toolNameVerbs.has(verb)) {
    return `does not start with a verb ("${verb}"); put the action first, ${example}`;
  }
  return undefined;
}

/** Tools sharing a word of the name (`query_order` / `track_order`), else all of them. */
function closestSiblings(name: string, others: readonly string[]): string[] {
  const words = new Set(name.toLowerCase().split(/[_-]/));
  const sharing = others.filter((other) =>
    other
      .toLowerCase()
      .split(/[_-]/)
      .some((word) => words.has(word)),
  );
  return (sharing.length > 0 ? sharing : [...others]).slice(0, 3);
}

interface Parameter {
  readonly path: string;
  readonly name: string;
  readonly schema: JsonSchema;
}

/**
 * Every named property at any depth: nested objects, array items, tuple
 * items, combinators and `$defs`. Array items and combinator branches are
 * not parameters themselves; their properties are.
 */
function* walkParameters(schema: JsonSchema, prefix: string): Generator<Parameter> {
  const properties = schema['properties'];
  if (isSchema(properties)) {
    for (const [name, property] of Object.entries(properties)) {
      if (!isSchema(property)) continue;
      const path = prefix === '' ? name : `${prefix}.${name}`;
      yield { path, name, schema: property };
      yield* walkParameters(property, path);
    }
  }
  const items = schema['items'];
  if (isSchema(items)) yield* walkParameters(items, `${prefix}[]`);
  for (const keyword of ['prefixItems', 'anyOf', 'oneOf', 'allOf']) {
    const branches = schema[keyword];
    if (Array.isArray(branches)) {
      for (const branch of branches) if (isSchema(branch)) yield* walkParameters(branch, prefix);
    }
  }
  const additional = schema['additionalProperties'];
  if (isSchema(additional)) yield* walkParameters(additional, `${prefix}{}`);
  for (const keyword of ['$defs', 'definitions']) {
    const definitions = schema[keyword];
    if (isSchema(definitions)) {
      for (const [name, definition] of Object.entries(definitions)) {
        if (isSchema(definition)) yield* walkParameters(definition, `${keyword}.${name}`);
      }
    }
  }
}

function lintParameter({ path, name, schema }: Parameter): LintWarning[] {
  const warnings: LintWarning[] = [];
  if (typeof schema['description'] !== 'string' || schema['description'].trim() === '') {
    if (typeof schema['$ref'] !== 'string') {
      warnings.push({
        code: 'missing_description',
        path,
        message: `parameter "${path}" has no description: say what it is and, for a format, give an example`,
      });
    }
  }
  if (isStringSchema(schema) && formatFieldName.test(snakeCase(name)) && !isConstrained(schema)) {
    warnings.push({
      code: 'format_field_unconstrained',
      path,
      message: `parameter "${path}" looks like an id, code or date but has neither "pattern"/"format" nor "examples": add a pattern and an example value`,
    });
  }
  const identity = snakeCase(name);
  if (!path.includes('.') && !path.includes('[') && identityFieldName.test(identity)) {
    const tenant = identity.startsWith('tenant');
    warnings.push({
      code: 'identity_from_model',
      path,
      message:
        `parameter "${path}" looks like the caller's ${tenant ? 'tenant' : 'identity'}, which the model would choose here: ` +
        "bind it from the principal and bind the tenant with the user, e.g. boundParameters: { tenant_id: 'tenantId', " +
        "user_id: 'userId' } with dataScope 'tenant_user', so it leaves the schema the model sees",
    });
  }
  const enumProblem = unsatisfiableEnum(schema);
  if (enumProblem !== undefined) {
    warnings.push({
      code: 'enum_unsatisfiable',
      path,
      message: `parameter "${path}" can never be satisfied: ${enumProblem}`,
    });
  }
  return warnings;
}

/**
 * An `enum` none of whose values has the declared `type` (`type: boolean`
 * with `["true", "false"]`), or one put on an array instead of its `items`:
 * every call is rejected, whatever the model sends.
 */
function unsatisfiableEnum(schema: JsonSchema): string | undefined {
  const values = schema['enum'];
  const types = declaredTypes(schema['type']);
  if (!Array.isArray(values) || values.length === 0 || types.length === 0) return undefined;
  if (values.some((value) => types.some((name) => hasJsonType(value, name)))) return undefined;
  const shown = values
    .slice(0, 5)
    .map((value) => JSON.stringify(value))
    .join(', ');
  if (types.includes('array')) {
    return `"enum" (${shown}) is on the array itself and holds no array, so no value can pass; move the enum into "items"`;
  }
  return `"type" is ${types.map((name) => `"${name}"`).join(' or ')} but no "enum" value (${shown}) is of that type; make them agree`;
}

function isStringSchema(schema: JsonSchema): boolean {
  const type = schema['type'];
  return type === 'string' || (Array.isArray(type) && type.includes('string'));
}

function isConstrained(schema: JsonSchema): boolean {
  return ['pattern', 'format', 'examples', 'enum', 'const'].some((keyword) => schema[keyword] !== undefined);
}

function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/-/g, '_')
    .toLowerCase();
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
