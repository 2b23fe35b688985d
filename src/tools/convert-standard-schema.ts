import type { JsonSchema } from '../core/json-schema.js';
import { ToolDefinitionError } from '../errors/tool-definition-error.js';
import type { StandardJsonSchema } from './standard-json-schema.js';
import { strictConversionOptions, unsaidMarker } from './strict-conversion-options.js';

/** Keywords in which what a schema accepts and what it produces may differ without a transform. */
const outputOnlyDifferences = new Set(['$schema', 'required', 'additionalProperties', 'default', unsaidMarker]);
/** Keywords whose value maps names (of properties, of definitions) to schemas. */
const namingKeywords = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/**
 * Each schema object's JSON Schema, converted once: the same schema gives the
 * same JSON Schema to every tool defined with it (a tools factory called per
 * request or per test converts nothing twice). Only conversions that succeed
 * are kept; the JSON Schema is shared, as a JSON Schema object reused across
 * definitions is.
 */
const conversions = new WeakMap<object, JsonSchema>();

/** Where a converted schema's library drops unknown keys, by the parameters object it was converted to. */
const strippedObjects = new WeakMap<JsonSchema, readonly SchemaPath[]>();

/** Keys from the root of a JSON Schema to one of its nodes, e.g. `['properties', 'address']`. */
export type SchemaPath = readonly string[];

/** Keywords under which a node applies only to some values: no key is dropped there (see `unknownKeysDropped`). */
const conditionalKeywords = new Set(['anyOf', 'oneOf', 'allOf', 'not', 'if', 'then', 'else', 'dependentSchemas']);

/** Something a tool's Standard Schema says that its JSON Schema cannot. */
interface UnsaidPart {
  /** The parameter, e.g. `items[].sku`; undefined for the parameters object itself. */
  readonly field: string | undefined;
  readonly what: string;
}

/**
 * True when `value` is a Standard Schema (it has `~standard`), whether or
 * not it can give its JSON Schema.
 *
 * @example
 * isStandardSchema(z.object({})); // true
 * isStandardSchema({ type: 'object' }); // false
 */
export function isStandardSchema(value: unknown): value is { readonly '~standard': Record<string, unknown> } {
  if (typeof value !== 'object' && typeof value !== 'function') return false;
  if (value === null) return false;
  const props: unknown = (value as Record<string, unknown>)['~standard'];
  return typeof props === 'object' && props !== null;
}

/**
 * The JSON Schema (2020-12) of what a tool's Standard Schema accepts,
 * converted once, at definition (once per schema object), what the model is sent and what arbiter's
 * validator enforces. Refuses, with a `ToolDefinitionError` naming the tool
 * and each field, a schema that says what JSON Schema cannot (a refinement,
 * a transform, a coercion, a custom check, a Date): the model would never be
 * told it and arbiter could not enforce it. Found by the library's own
 * converter (zod, ArkType and valibot are asked to mark what they would
 * drop; any library may throw) and by comparing what the schema accepts
 * with what it produces.
 *
 * @example
 * convertStandardSchema({ toolName: 'query_order', schema: z.object({ order_id: z.string().regex(/^SO\d{8}$/) }) });
 * // { type: 'object', properties: { order_id: { type: 'string', pattern: '^SO\\d{8}$' } }, required: ['order_id'] }
 */
export function convertStandardSchema({ toolName, schema }: { toolName: string; schema: unknown }): JsonSchema {
  const fail = ({ message, field, cause }: { message: string; field?: string | undefined; cause?: unknown }): never => {
    throw new ToolDefinitionError({ toolName, field, message: `tool "${toolName}": ${message}`, cause });
  };
  if (!isStandardSchema(schema)) return fail({ message: 'parameters is not a Standard Schema' });
  const known = conversions.get(schema);
  if (known !== undefined) return known;
  const props = schema['~standard'];
  const vendor = typeof props['vendor'] === 'string' ? props['vendor'] : 'unknown';
  const converter = props['jsonSchema'] as Partial<StandardJsonSchema['~standard']['jsonSchema']> | undefined;
  if (typeof converter?.input !== 'function' || typeof converter.output !== 'function') {
    return fail({
      message:
        `parameters is a ${vendor} schema that cannot give its JSON Schema (no ~standard.jsonSchema): ` +
        (vendor === 'valibot'
          ? 'wrap it with toStandardJsonSchema from @valibot/to-json-schema'
          : 'use a library that implements Standard JSON Schema (zod 4, ArkType 2, valibot through @valibot/to-json-schema), or write the JSON Schema'),
    });
  }
  const reports: string[] = [];
  const convert = (side: 'input' | 'output'): Record<string, unknown> => {
    const libraryOptions = strictConversionOptions({
      vendor,
      report: (what) => reports.push(what) - 1,
      side,
    });
    try {
      const converted = (converter[side] as StandardJsonSchema['~standard']['jsonSchema']['input'])({
        target: 'draft-2020-12',
        ...(libraryOptions === undefined ? {} : { libraryOptions }),
      });
      if (typeof converted !== 'object' || converted === null) throw new TypeError('it returned no object');
      return converted;
    } catch (error) {
      return fail({
        message: `its ${vendor} parameters cannot be said in JSON Schema: ${error instanceof Error ? error.message : String(error)}`,
        cause: error,
      });
    }
  };
  const input = convert('input');
  const output = convert('output');
  if (vendor === 'arktype') addArkTypeDefaults(schema, input);
  const unsaid = [
    ...markedParts(input, reports),
    ...markedParts(output, reports),
    ...unsaidDefaults(input, output, []),
  ];
  const transformed = firstDifference(input, output, []);
  const transformedField = transformed === undefined ? undefined : fieldName(transformed);
  if (transformed !== undefined && !unsaid.some((part) => part.field === transformedField)) {
    unsaid.push({ field: transformedField, what: 'a transform: what it produces differs from what it accepts' });
  }
  if (unsaid.length > 0) {
    const parts = [...new Map(unsaid.map((part) => [`${part.field}\u0000${part.what}`, part])).values()];
    return fail({
      field: parts[0]?.field,
      message: [
        `its ${vendor} parameters say what JSON Schema cannot, so the model would never be told and arbiter could not enforce it:`,
        ...parts.map(
          (part) => `- ${part.field === undefined ? 'the parameters object' : `field "${part.field}"`}: ${part.what}`,
        ),
        'Say it with JSON Schema keywords (pattern, minimum, maxLength, enum, …), or check it in execute and throw a RetryableToolError.',
      ].join('\n'),
    });
  }
  const { $schema: _dialect, ...parameters } = input;
  conversions.set(schema, parameters);
  const dropped = unknownKeysDropped(input, output, []);
  if (dropped.length > 0) strippedObjects.set(parameters, dropped);
  return parameters;
}

/**
 * The objects of a converted schema whose unknown keys its library drops
 * (zod's `z.object`, valibot's `v.object`, ArkType's `"+": "delete"`): what
 * it produces closes them (`additionalProperties: false`) where what it
 * accepts leaves them open. arbiter drops those keys before `execute`, as the
 * library would; an object the library keeps open (`.loose()`, `looseObject`,
 * ArkType's default) keeps them, and one it closes (`.strict()`,
 * `strictObject`, `"+": "reject"`) refuses them. Empty for a JSON Schema
 * written by hand, where `additionalProperties` says it all.
 *
 * @example
 * unknownKeysStripped(defineTool({ …, parameters: z.object({ order_id: z.string() }) }).parameters); // [[]]
 */
export function unknownKeysStripped(parameters: JsonSchema): readonly SchemaPath[] {
  return strippedObjects.get(parameters) ?? [];
}

/** The paths of the nodes open to unknown keys in `input` and closed in `output`, outside conditional keywords. */
function unknownKeysDropped(input: unknown, output: unknown, path: SchemaPath): SchemaPath[] {
  if (!isRecord(input) || !isRecord(output)) return [];
  const found: SchemaPath[] = [];
  if (
    input['additionalProperties'] === undefined &&
    output['additionalProperties'] === false &&
    isRecord(input['properties'])
  ) {
    found.push(path);
  }
  const keysAreNames = namingKeywords.has(path.at(-1) ?? '');
  for (const [key, value] of Object.entries(input)) {
    if (!keysAreNames && conditionalKeywords.has(key)) continue;
    found.push(...unknownKeysDropped(value, output[key], [...path, key]));
  }
  return found;
}

/**
 * Properties a library fills in itself (required in what it produces, optional in what it accepts) with no
 * `default` in the JSON Schema: arbiter could not fill them, and `execute` is typed as receiving them.
 */
function unsaidDefaults(input: unknown, output: unknown, path: SchemaPath): UnsaidPart[] {
  if (!isRecord(input) || !isRecord(output)) return [];
  const parts: UnsaidPart[] = [];
  const properties = input['properties'];
  const inputRequired = Array.isArray(input['required']) ? input['required'] : [];
  const outputRequired = Array.isArray(output['required']) ? output['required'] : [];
  if (isRecord(properties)) {
    for (const name of outputRequired) {
      const property = typeof name === 'string' ? properties[name] : undefined;
      if (!isRecord(property) || inputRequired.includes(name) || 'default' in property) continue;
      parts.push({
        field: fieldName([...path, 'properties', String(name)]),
        what: 'a default its JSON Schema does not carry (write the default in execute, or make the field required)',
      });
    }
  }
  for (const [key, value] of Object.entries(input)) parts.push(...unsaidDefaults(value, output[key], [...path, key]));
  return parts;
}

/**
 * ArkType leaves its defaults out of what a type accepts (`type.in`) but
 * writes them in the type's own JSON Schema: copied from there onto the
 * properties that lack one, so they reach the model and `execute` as zod's do.
 */
function addArkTypeDefaults(schema: object, input: Record<string, unknown>): void {
  const toJsonSchema = (schema as { toJsonSchema?: unknown }).toJsonSchema;
  if (typeof toJsonSchema !== 'function') return;
  let annotated: unknown;
  try {
    annotated = toJsonSchema.call(schema, { target: 'draft-2020-12' });
  } catch {
    return;
  }
  const copy = (into: unknown, from: unknown): void => {
    if (!isRecord(into) || !isRecord(from)) return;
    if (!('default' in into) && 'default' in from) into['default'] = from['default'];
    for (const [key, value] of Object.entries(into)) copy(value, from[key]);
  };
  copy(input, annotated);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The parts the converter marked, with the field each sits in. */
function markedParts(schema: unknown, reports: readonly string[], path: readonly string[] = []): UnsaidPart[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const parts: UnsaidPart[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (key === unsaidMarker && typeof value === 'number') {
      parts.push({ field: fieldName(path), what: reports[value] ?? 'something JSON Schema cannot say' });
    } else parts.push(...markedParts(value, reports, [...path, key]));
  }
  return parts;
}

/** The path of the first node where `input` and `output` differ in more than `outputOnlyDifferences`. */
function firstDifference(input: unknown, output: unknown, path: readonly string[]): readonly string[] | undefined {
  if (typeof input !== 'object' || input === null || typeof output !== 'object' || output === null) {
    return Object.is(input, output) ? undefined : path;
  }
  if (Array.isArray(input) !== Array.isArray(output)) return path;
  const inputRecord = input as Record<string, unknown>;
  const outputRecord = output as Record<string, unknown>;
  const keys = new Set([...Object.keys(inputRecord), ...Object.keys(outputRecord)]);
  const keysAreNames = namingKeywords.has(path.at(-1) ?? '');
  for (const key of keys) {
    if (!keysAreNames && outputOnlyDifferences.has(key)) continue;
    if (!(key in inputRecord) || !(key in outputRecord)) return path;
    const difference = firstDifference(inputRecord[key], outputRecord[key], [...path, key]);
    if (difference !== undefined) return difference;
  }
  return undefined;
}

/** `properties.items.items.properties.sku` → `items[].sku`; undefined for the root. */
function fieldName(path: readonly string[]): string | undefined {
  let field = '';
  for (let index = 0; index < path.length; index += 1) {
    const keyword = path[index];
    const next = path[index + 1];
    if ((keyword === 'properties' || keyword === 'patternProperties') && next !== undefined) {
      field += field === '' ? next : `.${next}`;
      index += 1;
    } else if (keyword === 'items') field += '[]';
    else if (keyword === 'prefixItems' && next !== undefined) {
      field += `[${next}]`;
      index += 1;
    } else if (keyword === 'additionalProperties') field += field === '' ? '*' : '.*';
    else if (keyword === '$defs' && next !== undefined) {
      field = `$defs.${next}`;
      index += 1;
    }
  }
  return field === '' ? undefined : field;
}
