import { resolveLocalRef } from 'openai/lib/transform';
import type { JsonSchema } from '../core/json-schema.js';
import { isRecord } from '../util/is-record.js';

/** Schema hops (`$ref`, union branches) followed without descending into the value; guards cyclic schemas. */
const maxHops = 32;

/**
 * Undoes what strict mode does to optional fields: in strict mode every
 * property is required and an optional one is sent as `null` for "absent".
 * Returns a copy of `args` without each `null` whose property was optional
 * in `schema` (the original, non-strict schema) and does not itself accept
 * `null`, at every depth (`properties`, `items`, local `$ref`, and for a
 * union the first object branch that declares every key sent). Anything
 * else is left for validation to judge: a `null` in a required field stays
 * and is reported as the model's mistake.
 *
 * Call it on the parsed arguments just before schema validation, and only
 * for tools that were sent with `strict: true`.
 *
 * @example
 * stripStrictNulls({ order_id: 'SO20260901', note: null }, schema); // { order_id: 'SO20260901' } when note is optional
 */
export function stripStrictNulls(args: Record<string, unknown>, schema: JsonSchema): Record<string, unknown> {
  const stripped = stripValue(args, schema, schema, 0);
  return isRecord(stripped) ? stripped : args;
}

function stripValue(value: unknown, schema: unknown, root: JsonSchema, hops: number): unknown {
  if (hops > maxHops || !isRecord(schema)) return value;
  if (typeof schema['$ref'] === 'string') {
    const target = resolveLocalRef(root as never, schema['$ref']);
    return stripValue(value, target, root, hops + 1);
  }
  if (Array.isArray(value)) {
    const items = schema['items'];
    return isRecord(items) ? value.map((item) => stripValue(item, items, root, 0)) : value;
  }
  if (!isRecord(value)) return value;

  const properties = schema['properties'];
  if (!isRecord(properties)) {
    const branch = objectBranch(schema, value, root);
    return branch === undefined ? value : stripValue(value, branch, root, hops + 1);
  }
  const required = Array.isArray(schema['required']) ? schema['required'] : [];
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (item === null && property !== undefined && !required.includes(key) && !acceptsNull(property, root, 0)) {
      continue;
    }
    Object.defineProperty(result, key, {
      value: property === undefined ? item : stripValue(item, property, root, 0),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return result;
}

/** The first `anyOf`/`oneOf` branch with `properties` naming every key of `value`. */
function objectBranch(
  schema: Record<string, unknown>,
  value: Record<string, unknown>,
  root: JsonSchema,
): Record<string, unknown> | undefined {
  const branches = [schema['anyOf'], schema['oneOf']].flatMap((list) => (Array.isArray(list) ? list : []));
  for (const candidate of branches) {
    const branch =
      isRecord(candidate) && typeof candidate['$ref'] === 'string'
        ? resolveLocalRef(root as never, candidate['$ref'])
        : candidate;
    if (!isRecord(branch) || !isRecord(branch['properties'])) continue;
    const declared = branch['properties'];
    if (Object.keys(value).every((key) => Object.hasOwn(declared, key))) return branch;
  }
  return undefined;
}

function acceptsNull(schema: unknown, root: JsonSchema, hops: number): boolean {
  if (typeof schema === 'boolean') return schema;
  if (!isRecord(schema) || hops > maxHops) return false;
  if (typeof schema['$ref'] === 'string') {
    return acceptsNull(resolveLocalRef(root as never, schema['$ref']), root, hops + 1);
  }
  const { type } = schema;
  if (type !== undefined && type !== 'null' && !(Array.isArray(type) && type.includes('null'))) return false;
  if ('const' in schema && schema['const'] !== null) return false;
  if (Array.isArray(schema['enum']) && !schema['enum'].includes(null)) return false;
  for (const keyword of ['anyOf', 'oneOf']) {
    const branches = schema[keyword];
    if (Array.isArray(branches) && !branches.some((branch) => acceptsNull(branch, root, hops + 1))) return false;
  }
  const allOf = schema['allOf'];
  if (Array.isArray(allOf) && !allOf.every((branch) => acceptsNull(branch, root, hops + 1))) return false;
  return true;
}
