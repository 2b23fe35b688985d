import { Ajv2020 } from 'ajv/dist/2020.js';
import type { JsonSchema } from '../core/json-schema.js';
import { linearRegExp } from './linear-reg-exp.js';

/** Brings valid arguments to what `execute` receives, in place. */
export type ArgumentNormalizer = (args: Record<string, unknown>) => void;

let normalizingAjv: Ajv2020 | undefined;

/**
 * What the schema says happens to valid arguments before `execute`, done to
 * them in place: each `default` fills its absent property (ajv's
 * `useDefaults`), and unknown keys are dropped from the objects at
 * `stripUnknownAt` (ajv's `removeAdditional`), where the schema's library
 * drops them (zod's `z.object`, valibot's `v.object`). Everywhere else
 * `additionalProperties` rules as JSON Schema says: absent, unknown keys are
 * kept; `false`, they were refused by validation. No default is applied and
 * no key dropped inside `anyOf`, `oneOf`, `allOf`, `not` or `if`. Undefined
 * when the schema has neither a default nor an object to strip: the
 * arguments reach `execute` as validated.
 *
 * @example
 * const normalize = compileArgumentNormalizer({ schema, stripUnknownAt: [[]] });
 * normalize?.(args); // { notify: true } filled in, { extra: 1 } dropped
 */
export function compileArgumentNormalizer({
  schema,
  stripUnknownAt = [],
}: {
  schema: JsonSchema;
  /** Paths (keys from the root) of the object schemas whose unknown keys are dropped. */
  stripUnknownAt?: readonly (readonly string[])[];
}): ArgumentNormalizer | undefined {
  if (stripUnknownAt.length === 0 && !hasDefault(schema)) return undefined;
  const shape = openCopy(schema) as Record<string, unknown>;
  for (const path of stripUnknownAt) {
    let node: unknown = shape;
    for (const key of path) node = isRecord(node) ? node[key] : undefined;
    if (isRecord(node)) node['additionalProperties'] = false;
  }
  normalizingAjv ??= new Ajv2020({
    strict: false,
    allErrors: true,
    useDefaults: true,
    removeAdditional: true,
    validateFormats: false,
    validateSchema: false,
    code: { regExp: linearRegExp },
  });
  const normalize = normalizingAjv.compile(shape);
  normalizingAjv.removeSchema(shape);
  return (args) => void normalize(args);
}

/** A copy that refuses no unknown key: `additionalProperties: false` left out everywhere (validation did that). */
function openCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(openCopy);
  if (!isRecord(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === 'additionalProperties' && child === false) continue;
    copy[key] = key === 'default' || key === 'const' || key === 'enum' || key === 'examples' ? child : openCopy(child);
  }
  return copy;
}

function hasDefault(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasDefault);
  if (!isRecord(value)) return false;
  return Object.entries(value).some(
    ([key, child]) =>
      key === 'default' || (key !== 'const' && key !== 'enum' && key !== 'examples' && hasDefault(child)),
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
