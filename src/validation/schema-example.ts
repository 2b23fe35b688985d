import type { JsonSchema } from '../core/json-schema.js';
import { isSchemaObject, type SchemaResolver } from './schema-resolver.js';

/**
 * An example value for a schema and where it came from: `declared` by the
 * schema (`examples`, `example`, `default`, `const`, `enum`), `derived` from
 * its keywords (a format, bounds, an object built from its fields), or a bare
 * `placeholder` that is valid but says little (`"text"`, `true`).
 */
export interface SchemaExample {
  readonly value: unknown;
  readonly kind: 'declared' | 'derived' | 'placeholder';
}

const formatExamples: Readonly<Record<string, string>> = {
  'date-time': '2026-09-01T12:00:00Z',
  date: '2026-09-01',
  time: '12:00:00Z',
  duration: 'P1D',
  email: 'name@example.com',
  'idn-email': 'name@example.com',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  uri: 'https://example.com/',
  iri: 'https://example.com/',
  url: 'https://example.com/',
  'uri-reference': 'https://example.com/',
  'iri-reference': 'https://example.com/',
  uuid: '123e4567-e89b-12d3-a456-426614174000',
};

const maxDepth = 8;
const maxOptionalFields = 3;

/**
 * An example value for a schema, or undefined when none can be given
 * (a pattern without `examples`, a recursive shape).
 *
 * @example
 * schemaExample({ schema: { type: 'string', examples: ['SO20260901'] }, resolver }); // { value: 'SO20260901', kind: 'declared' }
 */
export function schemaExample({
  schema,
  resolver,
  depth = 0,
}: {
  schema: unknown;
  resolver: SchemaResolver;
  depth?: number;
}): SchemaExample | undefined {
  if (depth > maxDepth) return undefined;
  const own = declaredExample(isSchemaObject(schema) ? schema : {});
  if (own !== undefined) return own;
  const flat = resolver.flatten(schema);
  const declared = declaredExample(flat);
  if (declared !== undefined) return declared;
  const variants = Array.isArray(flat['anyOf']) ? flat['anyOf'] : Array.isArray(flat['oneOf']) ? flat['oneOf'] : [];
  for (const variant of variants) {
    const example = schemaExample({ schema: variant, resolver, depth: depth + 1 });
    if (example !== undefined) return example;
  }
  for (const type of typeList(flat)) {
    const example = exampleOfType({ type, flat, resolver, depth });
    if (example !== undefined) return example;
  }
  return undefined;
}

function declaredExample(schema: JsonSchema): SchemaExample | undefined {
  const examples = schema['examples'];
  if (Array.isArray(examples) && examples.length > 0) return { value: examples[0], kind: 'declared' };
  for (const keyword of ['example', 'default', 'const']) {
    if (Object.hasOwn(schema, keyword)) return { value: schema[keyword], kind: 'declared' };
  }
  const allowed = schema['enum'];
  if (Array.isArray(allowed) && allowed.length > 0) return { value: allowed[0], kind: 'declared' };
  return undefined;
}

function typeList(flat: JsonSchema): readonly string[] {
  const type = flat['type'];
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) {
    const names = type.filter((name): name is string => typeof name === 'string');
    return [...names.filter((name) => name !== 'null'), ...names.filter((name) => name === 'null')];
  }
  if (isSchemaObject(flat['properties']) || Array.isArray(flat['required'])) return ['object'];
  if (flat['items'] !== undefined || flat['prefixItems'] !== undefined) return ['array'];
  if (typeof flat['format'] === 'string') return ['string'];
  return [];
}

function exampleOfType({
  type,
  flat,
  resolver,
  depth,
}: {
  type: string;
  flat: JsonSchema;
  resolver: SchemaResolver;
  depth: number;
}): SchemaExample | undefined {
  switch (type) {
    case 'string':
      return stringExample(flat);
    case 'integer':
    case 'number':
      return numberExample(flat, type === 'integer');
    case 'boolean':
      return { value: true, kind: 'placeholder' };
    case 'null':
      return { value: null, kind: 'placeholder' };
    case 'object':
      return objectExample(flat, resolver, depth);
    case 'array':
      return arrayExample(flat, resolver, depth);
    default:
      return undefined;
  }
}

function stringExample(flat: JsonSchema): SchemaExample | undefined {
  const format = flat['format'];
  if (typeof format === 'string') {
    const value = formatExamples[format];
    return value === undefined ? undefined : { value, kind: 'derived' };
  }
  if (flat['pattern'] !== undefined) return undefined;
  const minLength = typeof flat['minLength'] === 'number' ? flat['minLength'] : 0;
  const maxLength = typeof flat['maxLength'] === 'number' ? flat['maxLength'] : Number.POSITIVE_INFINITY;
  if (minLength > 200 || minLength > maxLength) return undefined;
  const text = 'text'.padEnd(minLength, 'x').slice(0, maxLength);
  return { value: text, kind: 'placeholder' };
}

function numberExample(flat: JsonSchema, integer: boolean): SchemaExample | undefined {
  const minimum = finite(flat['minimum']);
  const maximum = finite(flat['maximum']);
  const exclusiveMinimum = finite(flat['exclusiveMinimum']);
  const exclusiveMaximum = finite(flat['exclusiveMaximum']);
  const multipleOf = finite(flat['multipleOf']);
  const bounded = [minimum, maximum, exclusiveMinimum, exclusiveMaximum].some((bound) => bound !== undefined);
  let candidate = 1;
  if (minimum !== undefined || exclusiveMinimum !== undefined) {
    candidate = Math.max(
      minimum ?? Number.NEGATIVE_INFINITY,
      exclusiveMinimum === undefined ? Number.NEGATIVE_INFINITY : exclusiveMinimum + 1,
    );
  } else if (maximum !== undefined || exclusiveMaximum !== undefined) {
    candidate = Math.min(
      1,
      maximum ?? Number.POSITIVE_INFINITY,
      exclusiveMaximum === undefined ? Number.POSITIVE_INFINITY : exclusiveMaximum - 1,
    );
  }
  if (integer) candidate = Math.ceil(candidate);
  if (multipleOf !== undefined && multipleOf > 0) candidate = Math.ceil(candidate / multipleOf) * multipleOf;
  const valid =
    Number.isFinite(candidate) &&
    (!integer || Number.isInteger(candidate)) &&
    (minimum === undefined || candidate >= minimum) &&
    (maximum === undefined || candidate <= maximum) &&
    (exclusiveMinimum === undefined || candidate > exclusiveMinimum) &&
    (exclusiveMaximum === undefined || candidate < exclusiveMaximum) &&
    (multipleOf === undefined || Number.isInteger(candidate / multipleOf));
  if (!valid) return undefined;
  return { value: candidate, kind: bounded ? 'derived' : 'placeholder' };
}

function objectExample(flat: JsonSchema, resolver: SchemaResolver, depth: number): SchemaExample | undefined {
  const properties = isSchemaObject(flat['properties']) ? flat['properties'] : {};
  const required = Array.isArray(flat['required'])
    ? flat['required'].filter((name): name is string => typeof name === 'string')
    : [];
  const value: Record<string, unknown> = {};
  for (const name of required) {
    const example = schemaExample({ schema: properties[name], resolver, depth: depth + 1 });
    if (example === undefined) return undefined;
    setOwn(value, name, example.value);
  }
  if (required.length === 0) {
    for (const [name, property] of Object.entries(properties)) {
      if (Object.keys(value).length >= maxOptionalFields) break;
      const example = schemaExample({ schema: property, resolver, depth: depth + 1 });
      if (example?.kind === 'declared') setOwn(value, name, example.value);
    }
  }
  return { value, kind: 'derived' };
}

function arrayExample(flat: JsonSchema, resolver: SchemaResolver, depth: number): SchemaExample | undefined {
  const minItems = finite(flat['minItems']) ?? 0;
  const maxItems = finite(flat['maxItems']) ?? Number.POSITIVE_INFINITY;
  if (Array.isArray(flat['prefixItems'])) return undefined;
  const item = schemaExample({ schema: flat['items'], resolver, depth: depth + 1 });
  if (item === undefined || maxItems < 1) return minItems === 0 ? { value: [], kind: 'placeholder' } : undefined;
  if (minItems > 1) return undefined;
  return { value: [item.value], kind: item.kind === 'placeholder' ? 'placeholder' : 'derived' };
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * Sets an own, enumerable property, also for names such as `__proto__`
 * that a plain assignment would treat specially.
 *
 * @example
 * setOwn(target, '__proto__', 1); // Object.keys(target) → ['__proto__']
 */
export function setOwn(target: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}
