import { toStrictJsonSchema } from 'openai/lib/transform';
import type { JsonSchema } from '../core/json-schema.js';
import type { ToolSpec } from '../core/tool-spec.js';
import { isRecord } from '../util/is-record.js';

/** A function definition as sent in strict mode: `strict` says whether the provider enforces its schema. */
export interface StrictToolSpec {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description: string;
    readonly parameters: JsonSchema;
    readonly strict: boolean;
  };
}

/** One tool made strict, or left as it was with the reason why. */
export interface StrictConversion {
  readonly tool: StrictToolSpec;
  /** Why this tool could not be made strict (it is sent with `strict: false` and its own schema); undefined when it was. */
  readonly problem: string | undefined;
}

/**
 * Keywords strict mode rejects whose removal only loosens the schema the
 * provider enforces. arbiter still validates every call against the
 * original schema, so nothing they checked is lost. Keywords strict mode
 * rejects that shape which properties may appear (`patternProperties`,
 * `propertyNames`, `if`/`then`/`else`, `dependentSchemas`, `prefixItems`, …)
 * are not removed: closing such an object would forbid what the tool
 * accepts, so those tools stay non-strict.
 */
const loosenedKeywords = [
  'not',
  'dependentRequired',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'contains',
  'minContains',
  'maxContains',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
] as const;

const nullSchema: JsonSchema = { type: 'null' };

/**
 * Rewrites tool definitions into the subset of JSON Schema that OpenAI's
 * strict mode (`strict: true`, constrained decoding) accepts:
 *
 * - every property is listed in `required`; one that was optional becomes
 *   nullable (`type: [..., 'null']`, `null` added to an `enum`, or
 *   `anyOf: [..., { type: 'null' }]`), so the model sends `null` for
 *   "absent" — map it back with `stripStrictNulls` before validation;
 * - every object gets `additionalProperties: false`, at any depth
 *   (`properties`, `items`, `anyOf`, `$defs`), via the openai SDK's own
 *   `toStrictJsonSchema`;
 * - the keywords strict mode rejects but whose removal only loosens the
 *   schema (`not`, `uniqueItems`, `minProperties`, …) are dropped;
 *   `pattern`, `format`, `minimum`, `examples` and other annotations are
 *   kept, as the SDK keeps them.
 *
 * A tool whose schema cannot be expressed strictly (a free-form object, a
 * map with `additionalProperties` as a schema, `patternProperties`, …) is
 * sent with `strict: false` and its own schema; `toStrictTool` says why.
 * Order is kept (tools and keys), and the output is a pure function of the
 * input, so the request prefix stays byte-identical for prompt caching.
 *
 * @example
 * const tools = toStrictTools(registry.specs);
 * // { type: 'function', function: { name: 'query_order', ..., parameters: { ..., additionalProperties: false }, strict: true } }
 */
export function toStrictTools(specs: readonly ToolSpec[]): StrictToolSpec[] {
  return specs.map((spec) => toStrictTool(spec).tool);
}

/**
 * One tool in strict form, or as it was plus the reason it cannot be strict.
 *
 * @example
 * const { tool, problem } = toStrictTool(spec);
 * if (problem !== undefined) console.warn(`${spec.function.name} stays non-strict: ${problem}`);
 */
export function toStrictTool(spec: ToolSpec): StrictConversion {
  const { name, description, parameters } = spec.function;
  const problems: string[] = [];
  const relaxed = relaxForStrict(structuredClone(parameters), [], problems);
  const keep = (problem: string): StrictConversion => ({
    tool: { type: 'function', function: { name, description, parameters, strict: false } },
    problem,
  });
  if (problems[0] !== undefined) return keep(problems[0]);
  try {
    const strict = toStrictJsonSchema(relaxed as never) as JsonSchema;
    return {
      tool: { type: 'function', function: { name, description, parameters: strict, strict: true } },
      problem: undefined,
    };
  } catch (error) {
    // The SDK throws a plain Error naming the path and keyword it cannot express.
    return keep(error instanceof Error ? error.message : String(error));
  }
}

/**
 * Makes optional properties nullable and drops loosening-only keywords, at
 * every depth; mutates its (cloned) input and notes what strict mode cannot say.
 */
function relaxForStrict(schema: unknown, path: readonly string[], problems: string[]): unknown {
  if (!isRecord(schema)) return schema;
  for (const keyword of loosenedKeywords) delete schema[keyword];

  const properties = schema['properties'];
  if (isRecord(properties)) {
    const required = Array.isArray(schema['required']) ? schema['required'] : [];
    for (const [key, property] of Object.entries(properties)) {
      const relaxed = relaxForStrict(property, [...path, 'properties', key], problems);
      properties[key] = required.includes(key) ? relaxed : nullable(relaxed);
    }
  } else if (path.length > 0 && hasType(schema, 'object') && schema['additionalProperties'] === undefined) {
    problems.push(
      `the object at \`${path.join('/')}\` declares no properties (a free-form object); strict mode would only allow {}`,
    );
  }

  for (const keyword of ['items', 'additionalProperties']) {
    if (isRecord(schema[keyword])) schema[keyword] = relaxForStrict(schema[keyword], [...path, keyword], problems);
  }
  for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
    const branches = schema[keyword];
    if (Array.isArray(branches)) {
      schema[keyword] = branches.map((branch, index) =>
        relaxForStrict(branch, [...path, keyword, String(index)], problems),
      );
    }
  }
  for (const keyword of ['$defs', 'definitions']) {
    const definitions = schema[keyword];
    if (!isRecord(definitions)) continue;
    for (const [key, definition] of Object.entries(definitions)) {
      definitions[key] = relaxForStrict(definition, [...path, keyword, key], problems);
    }
  }
  return schema;
}

/** The schema, also accepting `null`, changed as little as possible. */
function nullable(schema: unknown): unknown {
  if (!isRecord(schema) || acceptsNullShallow(schema)) return schema;
  const { type } = schema;
  const structural = ['$ref', 'anyOf', 'oneOf', 'allOf', 'const'].some((keyword) => schema[keyword] !== undefined);
  if (!structural && (typeof type === 'string' || Array.isArray(type) || Array.isArray(schema['enum']))) {
    const widened: Record<string, unknown> = { ...schema };
    if (typeof type === 'string') widened['type'] = [type, 'null'];
    else if (Array.isArray(type)) widened['type'] = [...type, 'null'];
    if (Array.isArray(schema['enum'])) widened['enum'] = [...schema['enum'], null];
    return widened;
  }
  if (Array.isArray(schema['anyOf']) && type === undefined && schema['$ref'] === undefined) {
    return { ...schema, anyOf: [...schema['anyOf'], nullSchema] };
  }
  const { description, ...rest } = schema;
  return description === undefined ? { anyOf: [rest, nullSchema] } : { description, anyOf: [rest, nullSchema] };
}

/** True when the schema visibly accepts `null` (without following `$ref`). */
function acceptsNullShallow(schema: Record<string, unknown>): boolean {
  const { type } = schema;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if (Array.isArray(schema['anyOf']))
    return schema['anyOf'].some((branch) => isRecord(branch) && acceptsNullShallow(branch));
  if (
    type !== undefined ||
    schema['$ref'] !== undefined ||
    schema['oneOf'] !== undefined ||
    schema['allOf'] !== undefined
  ) {
    return false;
  }
  if ('const' in schema) return schema['const'] === null;
  if (Array.isArray(schema['enum'])) return schema['enum'].includes(null);
  return true;
}

function hasType(schema: Record<string, unknown>, name: string): boolean {
  const { type } = schema;
  return type === name || (Array.isArray(type) && type.includes(name));
}
