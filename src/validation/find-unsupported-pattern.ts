import { linearRegExp } from './linear-reg-exp.js';
import { isSchemaObject } from './schema-resolver.js';

/** A `pattern` or `patternProperties` key the linear-time engine cannot compile. */
export interface UnsupportedPattern {
  /** Where it sits in the parameter schema, as a JSON pointer: `/properties/code/pattern`. */
  readonly schemaPath: string;
  readonly pattern: string;
  /** The engine's reason, e.g. "invalid or unsupported Perl syntax: `(?=`". */
  readonly reason: string;
}

const schemaMapKeywords = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const schemaListKeywords = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const schemaKeywords = [
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
];

/**
 * Finds the first regular expression in a schema (`pattern`, the keys of
 * `patternProperties`) that the linear-time engine refuses: lookaround,
 * backreferences, or syntax RE2 does not know. Walks only keyword
 * positions, so a property named `pattern` is not taken for the keyword.
 *
 * @example
 * findUnsupportedPattern({ type: 'object', properties: { code: { type: 'string', pattern: '(?=a)b' } } });
 * // { schemaPath: '/properties/code/pattern', pattern: '(?=a)b', reason: '…' }
 */
export function findUnsupportedPattern(schema: unknown, schemaPath = ''): UnsupportedPattern | undefined {
  if (Array.isArray(schema) || !isSchemaObject(schema)) return undefined;
  const { pattern, patternProperties } = schema;
  if (typeof pattern === 'string') {
    const reason = refusal(pattern);
    if (reason !== undefined) return { schemaPath: `${schemaPath}/pattern`, pattern, reason };
  }
  if (isSchemaObject(patternProperties)) {
    for (const key of Object.keys(patternProperties)) {
      const reason = refusal(key);
      if (reason !== undefined)
        return { schemaPath: `${schemaPath}/patternProperties/${escapePointer(key)}`, pattern: key, reason };
    }
  }
  for (const keyword of schemaMapKeywords) {
    const map = schema[keyword];
    if (!isSchemaObject(map)) continue;
    for (const [key, child] of Object.entries(map)) {
      const found = findUnsupportedPattern(child, `${schemaPath}/${keyword}/${escapePointer(key)}`);
      if (found !== undefined) return found;
    }
  }
  for (const keyword of [...schemaListKeywords, ...schemaKeywords]) {
    const value = schema[keyword];
    const children = Array.isArray(value) ? value : [value];
    for (const [index, child] of children.entries()) {
      const path = Array.isArray(value) ? `${schemaPath}/${keyword}/${index}` : `${schemaPath}/${keyword}`;
      const found = findUnsupportedPattern(child, path);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function refusal(pattern: string): string | undefined {
  try {
    linearRegExp(pattern, 'u');
    return undefined;
  } catch (error) {
    return (error instanceof Error ? error.message : String(error)).replace(/^error parsing regexp: /, '');
  }
}

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}
