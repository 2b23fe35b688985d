import type { JsonSchema } from '../../core/json-schema.js';
import { declaredTypes, hasJsonType } from '../../validation/declared-types.js';
import { findUnsupportedPattern } from '../../validation/find-unsupported-pattern.js';
import { forEachSubschema, isSchemaObject } from '../../validation/schema-resolver.js';

/** The largest `inputSchema` mounted, as JSON characters: about 8,000 tokens on every turn. */
export const maxSchemaChars = 32_768;
/** The deepest nesting of subschemas mounted. */
export const maxSchemaDepth = 16;

/** What checking a third party's `inputSchema` gave: a schema to mount, or why it is refused. */
export type McpSchemaCheck =
  | {
      readonly ok: true;
      readonly schema: JsonSchema;
      /** What was changed to make it usable, for the report (e.g. a draft-07 `$schema` dropped). */
      readonly notes: readonly string[];
    }
  | { readonly ok: false; readonly field: string; readonly problem: string };

const knownDrafts = /^https?:\/\/json-schema\.org\/(draft-0[4-7]|draft\/2019-09|draft\/2020-12)\/schema#?$/;

/**
 * Checks an MCP tool's `inputSchema` before it is mounted, since it comes
 * from a third party: enormous (over `maxSchemaChars` of JSON or
 * `maxSchemaDepth` levels), a `pattern` only a backtracking engine can run
 * (lookaround, backreferences), or unsatisfiable (no `enum` value of the
 * declared type, a required property whose schema is `false`, a minimum
 * above its maximum) is refused, naming the field. A root without `type`
 * gets `"type": "object"`; a `$schema` naming an older draft is dropped
 * (the schema is then read as 2020-12, as arbiter reads every schema).
 *
 * @example
 * checkMcpSchema({ type: 'object', properties: { code: { type: 'string', pattern: '(?=a)b' } } });
 * // { ok: false, field: 'properties.code.pattern', problem: 'the pattern "(?=a)b" cannot be matched in linear time …' }
 */
export function checkMcpSchema(given: unknown): McpSchemaCheck {
  if (!isSchemaObject(given)) {
    return { ok: false, field: 'inputSchema', problem: 'is not a JSON Schema object' };
  }
  const size = JSON.stringify(given).length;
  if (size > maxSchemaChars) {
    return {
      ok: false,
      field: 'inputSchema',
      problem: `is ${Math.round(size / 1024)} KB of JSON, above the ${maxSchemaChars / 1024} KB limit (it would be sent to the model on every turn)`,
    };
  }
  const deep = findTooDeep(given, '', 0);
  if (deep !== undefined) {
    return { ok: false, field: fieldOf(deep), problem: `nests more than ${maxSchemaDepth} levels deep` };
  }
  const notes: string[] = [];
  let schema: JsonSchema = given;
  if (schema['type'] === undefined) {
    schema = { ...schema, type: 'object' };
    notes.push('inputSchema had no "type"; mounted as "type": "object"');
  }
  if (schema['type'] !== 'object') {
    return {
      ok: false,
      field: 'inputSchema.type',
      problem: `must be "object", got ${JSON.stringify(schema['type'])}`,
    };
  }
  const draft = schema['$schema'];
  if (draft !== undefined) {
    if (typeof draft !== 'string' || !knownDrafts.test(draft)) {
      return { ok: false, field: 'inputSchema.$schema', problem: `names an unknown dialect ${JSON.stringify(draft)}` };
    }
    const { $schema: _dropped, ...rest } = schema;
    schema = rest;
    if (!draft.includes('2020-12'))
      notes.push(`inputSchema's "$schema" (${draft}) dropped; read as JSON Schema 2020-12`);
  }
  const pattern = findUnsupportedPattern(schema);
  if (pattern !== undefined) {
    return {
      ok: false,
      field: fieldOf(pattern.schemaPath),
      problem: `the pattern ${JSON.stringify(pattern.pattern)} cannot be matched in linear time (${pattern.reason}); lookaround and backreferences need a backtracking engine, which one argument can stall`,
    };
  }
  const unsatisfiable = findUnsatisfiable(schema, '');
  if (unsatisfiable !== undefined) {
    return {
      ok: false,
      field: fieldOf(unsatisfiable.path),
      problem: `can never be satisfied: ${unsatisfiable.problem}`,
    };
  }
  return { ok: true, schema, notes };
}

/** A JSON pointer into the schema as a dotted field for people: `/properties/code/pattern` → `properties.code.pattern`. */
function fieldOf(pointer: string): string {
  if (pointer === '') return 'inputSchema';
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .join('.');
}

function findTooDeep(schema: JsonSchema, pointer: string, depth: number): string | undefined {
  if (depth > maxSchemaDepth) return pointer;
  let found: string | undefined;
  forEachSubschema(schema, (subschema, _sameValue, relative) => {
    found ??= findTooDeep(subschema, `${pointer}${relative}`, depth + 1);
  });
  return found;
}

function findUnsatisfiable(schema: JsonSchema, pointer: string): { path: string; problem: string } | undefined {
  const problem = ownContradiction(schema);
  if (problem !== undefined) return { path: pointer, problem };
  const properties = schema['properties'];
  const required = schema['required'];
  if (isSchemaObject(properties) && Array.isArray(required)) {
    for (const name of required) {
      if (typeof name === 'string' && properties[name] === false) {
        return { path: `${pointer}/properties/${name}`, problem: 'it is required, and its schema is false' };
      }
    }
  }
  let found: { path: string; problem: string } | undefined;
  forEachSubschema(schema, (subschema, _sameValue, relative) => {
    found ??= findUnsatisfiable(subschema, `${pointer}${relative}`);
  });
  return found;
}

function ownContradiction(schema: JsonSchema): string | undefined {
  const types = declaredTypes(schema['type']);
  const values = schema['enum'];
  if (Array.isArray(values) && values.length === 0) return '"enum" is empty';
  if (
    Array.isArray(values) &&
    types.length > 0 &&
    !values.some((value) => types.some((type) => hasJsonType(value, type)))
  ) {
    return `"type" is ${types.join(' or ')} but no "enum" value (${values
      .slice(0, 5)
      .map((value) => JSON.stringify(value))
      .join(', ')}) is`;
  }
  if ('const' in schema && types.length > 0 && !types.some((type) => hasJsonType(schema['const'], type))) {
    return `"type" is ${types.join(' or ')} but "const" is ${JSON.stringify(schema['const'])}`;
  }
  const not = schema['not'];
  if (isSchemaObject(not) && Object.keys(not).length === 0) return '"not": {} rejects every value';
  for (const [low, high] of [
    ['minimum', 'maximum'],
    ['minLength', 'maxLength'],
    ['minItems', 'maxItems'],
    ['minProperties', 'maxProperties'],
  ] as const) {
    const lowValue = schema[low];
    const highValue = schema[high];
    if (typeof lowValue === 'number' && typeof highValue === 'number' && lowValue > highValue) {
      return `"${low}" ${lowValue} is above "${high}" ${highValue}`;
    }
  }
  return undefined;
}
