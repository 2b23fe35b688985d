import type { JsonSchema } from '../core/json-schema.js';

/** Keywords whose value is one subschema that applies to a child value (a field, an item). */
const childKeywords = [
  'additionalProperties',
  'items',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
] as const;
/** Keywords whose value maps names to child subschemas. */
const childMapKeywords = ['properties', 'patternProperties', '$defs', 'definitions'] as const;
/** Keywords whose subschemas apply to the same value as the schema holding them. */
const sameValueKeywords = ['not', 'if', 'then', 'else'] as const;
const sameValueListKeywords = ['allOf', 'anyOf', 'oneOf'] as const;

const maxRefHops = 32;

/** Looks up `$ref`s inside one root schema and merges a schema with what it references. */
export interface SchemaResolver {
  readonly root: JsonSchema;
  /** The schema a local `$ref` (`#/$defs/x`, `#anchor`) points to; undefined for remote or broken refs. */
  resolveRef(ref: string): unknown;
  /** The value at a JSON pointer fragment such as ajv's `#/properties/a` (percent- and ~-decoded). */
  atPointer(fragment: string): unknown;
  /**
   * One plain view of a schema: its `$ref` target and `allOf` branches merged
   * under its own keywords (its own win). Cached per schema object.
   */
  flatten(schema: unknown): JsonSchema;
}

/**
 * True for a schema object (not a boolean schema, not an array).
 *
 * @example
 * isSchemaObject({ type: 'string' }); // true
 */
export function isSchemaObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Calls `visit` for every direct subschema of `schema`, saying whether it
 * applies to the same value (`allOf`, `then`, …) or to a child value, and
 * where it sits relative to `schema` as a JSON pointer (`/properties/code`).
 *
 * @example
 * forEachSubschema(schema, (subschema, sameValue, pointer) => console.log(pointer, sameValue));
 */
export function forEachSubschema(
  schema: JsonSchema,
  visit: (subschema: JsonSchema, sameValue: boolean, pointer: string) => void,
): void {
  for (const keyword of childKeywords) {
    const value = schema[keyword];
    if (isSchemaObject(value)) visit(value, false, `/${keyword}`);
  }
  for (const keyword of childMapKeywords) {
    const map = schema[keyword];
    if (!isSchemaObject(map)) continue;
    for (const [name, value] of Object.entries(map)) {
      if (isSchemaObject(value)) visit(value, false, `/${keyword}/${escapePointer(name)}`);
    }
  }
  const prefixItems = schema['prefixItems'];
  if (Array.isArray(prefixItems)) {
    for (const [index, value] of prefixItems.entries()) {
      if (isSchemaObject(value)) visit(value, false, `/prefixItems/${index}`);
    }
  }
  const dependentSchemas = schema['dependentSchemas'];
  if (isSchemaObject(dependentSchemas)) {
    for (const [name, value] of Object.entries(dependentSchemas)) {
      if (isSchemaObject(value)) visit(value, true, `/dependentSchemas/${escapePointer(name)}`);
    }
  }
  for (const keyword of sameValueKeywords) {
    const value = schema[keyword];
    if (isSchemaObject(value)) visit(value, true, `/${keyword}`);
  }
  for (const keyword of sameValueListKeywords) {
    const list = schema[keyword];
    if (!Array.isArray(list)) continue;
    for (const [index, value] of list.entries()) if (isSchemaObject(value)) visit(value, true, `/${keyword}/${index}`);
  }
}

/** A name as one JSON pointer segment (`~` and `/` escaped). */
export function escapePointer(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * A resolver for one root schema. Only local references are followed;
 * anything else is treated as an unconstrained schema.
 *
 * @example
 * const resolver = createSchemaResolver(schema);
 * resolver.flatten(schema.properties.status); // the $ref target's keywords plus the field's own
 */
export function createSchemaResolver(root: JsonSchema): SchemaResolver {
  const flattened = new WeakMap<object, JsonSchema>();
  let anchors: Map<string, JsonSchema> | undefined;

  const atPointer = (fragment: string): unknown => {
    const pointer = fragment.startsWith('#') ? fragment.slice(1) : fragment;
    if (pointer === '') return root;
    let current: unknown = root;
    for (const rawSegment of pointer.split('/').slice(1)) {
      const segment = decodeSegment(rawSegment);
      if (Array.isArray(current)) current = current[Number(segment)];
      else if (isSchemaObject(current) && Object.hasOwn(current, segment)) current = current[segment];
      else return undefined;
    }
    return current;
  };

  const resolveRef = (ref: string): unknown => {
    if (ref === '#' || ref.startsWith('#/')) return atPointer(ref);
    if (ref.startsWith('#')) {
      anchors ??= collectAnchors(root);
      return anchors.get(ref.slice(1));
    }
    return undefined;
  };

  const flatten = (schema: unknown, hops = 0): JsonSchema => {
    if (!isSchemaObject(schema)) return {};
    const cached = flattened.get(schema);
    if (cached !== undefined) return cached;
    const ref = schema['$ref'];
    const allOf = schema['allOf'];
    if (typeof ref !== 'string' && !Array.isArray(allOf)) return schema;
    const merged: Record<string, unknown> = {};
    if (typeof ref === 'string' && hops < maxRefHops) Object.assign(merged, flatten(resolveRef(ref), hops + 1));
    if (Array.isArray(allOf) && hops < maxRefHops) {
      for (const branch of allOf) Object.assign(merged, flatten(branch, hops + 1));
    }
    for (const [keyword, value] of Object.entries(schema)) {
      if (keyword !== '$ref' && keyword !== 'allOf') merged[keyword] = value;
    }
    if (Array.isArray(allOf)) merged['required'] = mergedRequired(schema, allOf, merged);
    flattened.set(schema, merged);
    return merged;
  };

  return { root, resolveRef, atPointer, flatten: (schema) => flatten(schema) };
}

function decodeSegment(segment: string): string {
  let decoded = segment;
  if (decoded.includes('%')) {
    try {
      decoded = decodeURIComponent(decoded);
    } catch {
      // Not percent-encoded after all: use it as written.
    }
  }
  return decoded.replaceAll('~1', '/').replaceAll('~0', '~');
}

function mergedRequired(schema: JsonSchema, allOf: readonly unknown[], merged: JsonSchema): readonly string[] {
  const names = new Set<string>();
  const add = (value: unknown): void => {
    if (Array.isArray(value)) for (const name of value) if (typeof name === 'string') names.add(name);
  };
  add(merged['required']);
  for (const branch of allOf) if (isSchemaObject(branch)) add(branch['required']);
  add(schema['required']);
  return [...names];
}

function collectAnchors(root: JsonSchema): Map<string, JsonSchema> {
  const anchors = new Map<string, JsonSchema>();
  const visit = (schema: JsonSchema): void => {
    for (const keyword of ['$anchor', '$dynamicAnchor']) {
      const anchor = schema[keyword];
      if (typeof anchor === 'string' && !anchors.has(anchor)) anchors.set(anchor, schema);
    }
    forEachSubschema(schema, visit);
  };
  visit(root);
  return anchors;
}
