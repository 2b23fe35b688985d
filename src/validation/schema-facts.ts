import type { JsonSchema } from '../core/json-schema.js';
import { isSchemaObject, type SchemaResolver } from './schema-resolver.js';

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

/** A limit on a value: `>= 1`, `< 100`, or `>= "2026-01-01"` for format limits. */
export interface SchemaLimit {
  readonly value: number | string;
  readonly inclusive: boolean;
}

/**
 * What a schema expects, in plain terms, independent of any language. The
 * texts of each locale turn these into a phrase ("an integer >= 1").
 */
export interface SchemaFacts {
  readonly types: readonly JsonType[];
  readonly constant: { readonly value: unknown } | undefined;
  readonly allowedValues: readonly unknown[] | undefined;
  readonly pattern: string | undefined;
  readonly format: string | undefined;
  readonly minLength: number | undefined;
  readonly maxLength: number | undefined;
  readonly lower: SchemaLimit | undefined;
  readonly upper: SchemaLimit | undefined;
  readonly multipleOf: number | undefined;
  readonly minItems: number | undefined;
  readonly maxItems: number | undefined;
  readonly uniqueItems: boolean;
  readonly itemTypes: readonly JsonType[];
  readonly requiredFields: readonly string[];
  /** The accepted forms of an `anyOf`/`oneOf`. */
  readonly variants: readonly SchemaFacts[];
}

const jsonTypes: readonly JsonType[] = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];
const maxVariantDepth = 3;

/**
 * Reads what a schema expects, following `$ref` and merging `allOf`.
 *
 * @example
 * schemaFacts({ schema: { type: 'integer', minimum: 1 }, resolver }).lower; // { value: 1, inclusive: true }
 */
export function schemaFacts({
  schema,
  resolver,
  depth = 0,
}: {
  schema: unknown;
  resolver: SchemaResolver;
  depth?: number;
}): SchemaFacts {
  const flat = resolver.flatten(schema);
  const variantList = Array.isArray(flat['anyOf']) ? flat['anyOf'] : Array.isArray(flat['oneOf']) ? flat['oneOf'] : [];
  const items = flat['items'];
  const prefixItems = flat['prefixItems'];
  const maxItems =
    items === false && Array.isArray(prefixItems)
      ? Math.min(prefixItems.length, numberOf(flat['maxItems']) ?? Number.POSITIVE_INFINITY)
      : numberOf(flat['maxItems']);
  return {
    types: typesOf(flat),
    constant: Object.hasOwn(flat, 'const') ? { value: flat['const'] } : undefined,
    allowedValues: Array.isArray(flat['enum']) ? flat['enum'] : undefined,
    pattern: stringOf(flat['pattern']),
    format: stringOf(flat['format']),
    minLength: numberOf(flat['minLength']),
    maxLength: numberOf(flat['maxLength']),
    lower:
      limitOf(flat, 'minimum', 'exclusiveMinimum') ?? formatLimitOf(flat, 'formatMinimum', 'formatExclusiveMinimum'),
    upper:
      limitOf(flat, 'maximum', 'exclusiveMaximum') ?? formatLimitOf(flat, 'formatMaximum', 'formatExclusiveMaximum'),
    multipleOf: numberOf(flat['multipleOf']),
    minItems: numberOf(flat['minItems']),
    maxItems,
    uniqueItems: flat['uniqueItems'] === true,
    itemTypes: isSchemaObject(items) ? typesOf(resolver.flatten(items)) : [],
    requiredFields: Array.isArray(flat['required'])
      ? flat['required'].filter((name): name is string => typeof name === 'string')
      : [],
    variants:
      depth < maxVariantDepth
        ? variantList.map((variant) => schemaFacts({ schema: variant, resolver, depth: depth + 1 }))
        : [],
  };
}

/** The declared types, or the type the keywords imply when none is declared. */
function typesOf(flat: JsonSchema): readonly JsonType[] {
  const declared = flat['type'];
  if (typeof declared === 'string') return isJsonType(declared) ? [declared] : [];
  if (Array.isArray(declared)) return declared.filter(isJsonType);
  if (Object.hasOwn(flat, 'const') || Array.isArray(flat['enum'])) return [];
  if (has(flat, 'properties', 'required', 'additionalProperties', 'patternProperties', 'minProperties')) {
    return ['object'];
  }
  if (has(flat, 'items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems', 'contains')) return ['array'];
  if (has(flat, 'pattern', 'minLength', 'maxLength', 'format')) return ['string'];
  if (has(flat, 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf')) return ['number'];
  return [];
}

function isJsonType(value: unknown): value is JsonType {
  return jsonTypes.includes(value as JsonType);
}

function has(flat: JsonSchema, ...keywords: string[]): boolean {
  return keywords.some((keyword) => flat[keyword] !== undefined);
}

function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function limitOf(flat: JsonSchema, inclusiveKeyword: string, exclusiveKeyword: string): SchemaLimit | undefined {
  const inclusive = numberOf(flat[inclusiveKeyword]);
  const exclusive = numberOf(flat[exclusiveKeyword]);
  if (exclusive === undefined) return inclusive === undefined ? undefined : { value: inclusive, inclusive: true };
  if (inclusive === undefined) return { value: exclusive, inclusive: false };
  const exclusiveIsTighter = inclusiveKeyword === 'minimum' ? exclusive >= inclusive : exclusive <= inclusive;
  return exclusiveIsTighter ? { value: exclusive, inclusive: false } : { value: inclusive, inclusive: true };
}

function formatLimitOf(flat: JsonSchema, inclusiveKeyword: string, exclusiveKeyword: string): SchemaLimit | undefined {
  const inclusive = stringOf(flat[inclusiveKeyword]);
  if (inclusive !== undefined) return { value: inclusive, inclusive: true };
  const exclusive = stringOf(flat[exclusiveKeyword]);
  return exclusive === undefined ? undefined : { value: exclusive, inclusive: false };
}

/**
 * The limit when it is numeric (`minimum`, …), else undefined.
 *
 * @example
 * numericLimit({ value: 1, inclusive: true }); // { value: 1, inclusive: true }
 */
export function numericLimit(limit: SchemaLimit | undefined): SchemaLimit | undefined {
  return typeof limit?.value === 'number' ? limit : undefined;
}

/**
 * The limit when it is a format limit (`formatMinimum`, …), else undefined.
 *
 * @example
 * textualLimit({ value: '2026-01-01', inclusive: true }); // { value: '2026-01-01', inclusive: true }
 */
export function textualLimit(limit: SchemaLimit | undefined): SchemaLimit | undefined {
  return typeof limit?.value === 'string' ? limit : undefined;
}

/**
 * True for `type: array` with an enum of scalars: the values were meant for
 * `items`, and no array can equal one.
 *
 * @example
 * isEnumOnArray(schemaFacts({ schema: { type: 'array', enum: ['red'] }, resolver })); // true
 */
export function isEnumOnArray(facts: SchemaFacts): boolean {
  const values = facts.allowedValues ?? [];
  return facts.types.includes('array') && values.length > 0 && values.every((value) => !Array.isArray(value));
}
