import type { JsonSchema } from '../core/json-schema.js';
import { listHead } from './list-head.js';
import { renderJson } from './render-json.js';
import { schemaExample, setOwn } from './schema-example.js';
import { type SchemaFacts, schemaFacts } from './schema-facts.js';
import { createSchemaResolver, forEachSubschema, isSchemaObject, type SchemaResolver } from './schema-resolver.js';

/** How an issue shows a valid value: one example, or every allowed value of an enum. */
export type ExampleHint =
  | { readonly kind: 'example'; readonly json: string }
  | {
      readonly kind: 'allowed';
      /** The first allowed values (see `maxListed`). */
      readonly json: readonly string[];
      /** How many allowed values `json` leaves out. */
      readonly more: number;
    };

/** Everything an issue says about the field it concerns, computed once per field schema. */
export interface FieldFacts {
  /** Undefined when nothing is known of the field. */
  readonly facts: SchemaFacts | undefined;
  /** The field's `description`, on one line, without a closing period. */
  readonly description: string | undefined;
  readonly hint: ExampleHint | undefined;
}

/**
 * What the issue builder needs to know about one tool's schema, computed
 * when the tool is compiled or on first use and kept for every later call.
 */
export interface SchemaGuide {
  readonly resolver: SchemaResolver;
  /**
   * The schema of the field a subschema belongs to: from an `allOf`/`then`
   * branch to the schema holding it, from a `$defs` entry used once to the
   * schema that references it.
   */
  fieldSchemaOf(schema: unknown): unknown;
  field(schema: unknown): FieldFacts;
  /** The schema a property `name` of an object matching `objectSchema` must satisfy, if any. */
  propertySchema(objectSchema: unknown, name: string): unknown;
  /** The property names an object schema declares, and its `patternProperties`. */
  objectFields(objectSchema: unknown): { readonly names: readonly string[]; readonly patterns: readonly string[] };
  /** Every schema object reachable from `schema[keyword]` (for collapsing `anyOf` branch errors). */
  membersOf(schema: unknown, keyword: string): ReadonlySet<unknown>;
  /** The required top-level arguments. */
  readonly requiredArguments: readonly string[];
  /** Whether the schema uses a keyword whose branch errors get collapsed (`anyOf`, `oneOf`, `contains`, `propertyNames`, `if`). */
  readonly hasComposites: boolean;
  /** The position of each top-level argument in the schema's `properties`. */
  readonly argumentOrder: ReadonlyMap<string, number>;
  /** An arguments object built from the examples of the required fields, as JSON. */
  argumentsExample(): string;
}

const guides = new WeakMap<JsonSchema, SchemaGuide>();
const maxDescriptionLength = 240;
const maxOwnerHops = 16;

/**
 * The guide of a root schema, shared by every validator of that schema object.
 *
 * @example
 * const guide = schemaGuide(applyRefundSchema);
 * guide.field(applyRefundSchema.properties.order_id).description; // 'Order number: SO followed by 8 digits'
 */
export function schemaGuide(root: JsonSchema): SchemaGuide {
  let guide = guides.get(root);
  if (guide === undefined) {
    guide = createSchemaGuide(root);
    guides.set(root, guide);
  }
  return guide;
}

function createSchemaGuide(root: JsonSchema): SchemaGuide {
  const resolver = createSchemaResolver(root);
  const { ownerOf, wrapperOf, hasComposites } = mapOwners(root, resolver);
  const fields = new WeakMap<object, FieldFacts>();
  const members = new WeakMap<object, Map<string, ReadonlySet<unknown>>>();
  const patterns = new Map<string, RegExp | undefined>();
  let argumentsJson: string | undefined;

  const fieldSchemaOf = (schema: unknown): unknown => {
    let current = schema;
    for (let hop = 0; hop < maxOwnerHops && isSchemaObject(current); hop += 1) {
      const next = ownerOf.get(current) ?? wrapperOf.get(current);
      if (next === undefined) break;
      current = next;
    }
    return current;
  };

  const field = (schema: unknown): FieldFacts => {
    const key = isSchemaObject(schema) ? schema : emptySchema;
    let cached = fields.get(key);
    if (cached === undefined) {
      cached = describeField(key, resolver);
      fields.set(key, cached);
    }
    return cached;
  };

  const patternRegExp = (pattern: string): RegExp | undefined => {
    if (!patterns.has(pattern)) {
      try {
        patterns.set(pattern, new RegExp(pattern, 'u'));
      } catch {
        patterns.set(pattern, undefined);
      }
    }
    return patterns.get(pattern);
  };

  const candidates = (objectSchema: unknown): JsonSchema[] => {
    const owner = fieldSchemaOf(objectSchema);
    const list = [resolver.flatten(objectSchema)];
    if (owner !== objectSchema) list.push(resolver.flatten(owner));
    return list;
  };

  const propertySchema = (objectSchema: unknown, name: string): unknown => {
    for (const flat of candidates(objectSchema)) {
      const properties = flat['properties'];
      if (isSchemaObject(properties) && Object.hasOwn(properties, name)) return properties[name];
      const patternProperties = flat['patternProperties'];
      if (isSchemaObject(patternProperties)) {
        for (const [pattern, schema] of Object.entries(patternProperties)) {
          if (patternRegExp(pattern)?.test(name)) return schema;
        }
      }
      if (isSchemaObject(flat['additionalProperties'])) return flat['additionalProperties'];
    }
    return undefined;
  };

  const objectFields = (objectSchema: unknown) => {
    const names = new Set<string>();
    const patternNames = new Set<string>();
    for (const flat of candidates(objectSchema)) {
      const properties = flat['properties'];
      if (isSchemaObject(properties)) {
        for (const [name, schema] of Object.entries(properties)) if (schema !== false) names.add(name);
      }
      const patternProperties = flat['patternProperties'];
      if (isSchemaObject(patternProperties))
        for (const pattern of Object.keys(patternProperties)) patternNames.add(pattern);
    }
    return { names: [...names], patterns: [...patternNames] };
  };

  const membersOf = (schema: unknown, keyword: string): ReadonlySet<unknown> => {
    if (!isSchemaObject(schema)) return emptySet;
    let byKeyword = members.get(schema);
    if (byKeyword === undefined) {
      byKeyword = new Map();
      members.set(schema, byKeyword);
    }
    let set = byKeyword.get(keyword);
    if (set === undefined) {
      set = reachableFrom(schema[keyword], resolver);
      byKeyword.set(keyword, set);
    }
    return set;
  };

  const rootFlat = resolver.flatten(root);
  const requiredArguments = Array.isArray(rootFlat['required'])
    ? rootFlat['required'].filter((name): name is string => typeof name === 'string')
    : [];

  const argumentOrder = new Map(
    Object.keys(isSchemaObject(rootFlat['properties']) ? rootFlat['properties'] : {}).map((name, index) => [
      name,
      index,
    ]),
  );

  const argumentsExample = (): string => {
    argumentsJson ??= renderJson(buildArgumentsExample(rootFlat, requiredArguments, resolver));
    return argumentsJson;
  };

  return {
    resolver,
    fieldSchemaOf,
    field,
    propertySchema,
    objectFields,
    membersOf,
    requiredArguments,
    hasComposites,
    argumentOrder,
    argumentsExample,
  };
}

const emptySchema: JsonSchema = Object.freeze({});
const compositeKeywords = ['anyOf', 'oneOf', 'contains', 'propertyNames', 'if', 'discriminator'];
const emptySet: ReadonlySet<unknown> = new Set();

function describeField(schema: JsonSchema, resolver: SchemaResolver): FieldFacts {
  const facts = schemaFacts({ schema, resolver });
  const flat = resolver.flatten(schema);
  const description = typeof flat['description'] === 'string' ? oneLine(flat['description']) : undefined;
  let hint: ExampleHint | undefined;
  if (facts.allowedValues !== undefined && facts.allowedValues.length > 0) {
    const { shown, more } = listHead(facts.allowedValues);
    hint = { kind: 'allowed', json: shown.map((value) => renderJson(value)), more };
  } else {
    const example = schemaExample({ schema, resolver });
    if (example !== undefined && example.kind !== 'placeholder')
      hint = { kind: 'example', json: renderJson(example.value) };
  }
  return { facts, description: description === '' ? undefined : description, hint };
}

function oneLine(text: string): string {
  const line = text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[.。]+$/, '');
  return line.length > maxDescriptionLength ? `${line.slice(0, maxDescriptionLength)}…` : line;
}

/**
 * Which schema holds each same-value branch (`allOf`, `then`, …), and which
 * single schema references each `$defs` entry used exactly once.
 */
function mapOwners(root: JsonSchema, resolver: SchemaResolver) {
  const ownerOf = new WeakMap<object, JsonSchema>();
  const referrers = new Map<object, JsonSchema[]>();
  const seen = new Set<object>();
  let hasComposites = false;
  const visit = (schema: JsonSchema): void => {
    if (seen.has(schema)) return;
    seen.add(schema);
    if (compositeKeywords.some((keyword) => schema[keyword] !== undefined)) hasComposites = true;
    const ref = schema['$ref'];
    if (typeof ref === 'string') {
      const target = resolver.resolveRef(ref);
      if (isSchemaObject(target) && target !== root) referrers.set(target, [...(referrers.get(target) ?? []), schema]);
    }
    forEachSubschema(schema, (subschema, sameValue) => {
      if (sameValue && !ownerOf.has(subschema)) ownerOf.set(subschema, schema);
      visit(subschema);
    });
  };
  visit(root);
  const wrapperOf = new WeakMap<object, JsonSchema>();
  for (const [target, list] of referrers) {
    const [only] = list;
    if (list.length === 1 && only !== undefined) wrapperOf.set(target, only);
  }
  return { ownerOf, wrapperOf, hasComposites };
}

function reachableFrom(start: unknown, resolver: SchemaResolver): ReadonlySet<unknown> {
  const reached = new Set<unknown>();
  const queue: unknown[] = Array.isArray(start) ? [...start] : [start];
  while (queue.length > 0) {
    const schema = queue.pop();
    if (!isSchemaObject(schema) || reached.has(schema)) continue;
    reached.add(schema);
    const ref = schema['$ref'];
    if (typeof ref === 'string') queue.push(resolver.resolveRef(ref));
    forEachSubschema(schema, (subschema) => queue.push(subschema));
  }
  return reached;
}

function buildArgumentsExample(
  rootFlat: JsonSchema,
  required: readonly string[],
  resolver: SchemaResolver,
): Record<string, unknown> {
  const properties = isSchemaObject(rootFlat['properties']) ? rootFlat['properties'] : {};
  const value: Record<string, unknown> = {};
  for (const name of required) {
    const example = schemaExample({ schema: properties[name], resolver });
    if (example !== undefined) setOwn(value, name, example.value);
  }
  if (required.length > 0) return value;
  for (const [name, schema] of Object.entries(properties)) {
    if (Object.keys(value).length >= 3) break;
    const example = schemaExample({ schema, resolver });
    if (example?.kind === 'declared') setOwn(value, name, example.value);
  }
  return value;
}
