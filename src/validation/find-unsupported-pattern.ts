import { linearRegExp } from './linear-reg-exp.js';
import { escapePointer, forEachSubschema, isSchemaObject } from './schema-resolver.js';

/** A `pattern` or `patternProperties` key the linear-time engine cannot compile. */
export interface UnsupportedPattern {
  /** Where it sits in the parameter schema, as a JSON pointer: `/properties/code/pattern`. */
  readonly schemaPath: string;
  readonly pattern: string;
  /** The engine's reason, e.g. "invalid or unsupported Perl syntax: `(?=`". */
  readonly reason: string;
}

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
  if (!isSchemaObject(schema)) return undefined;
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
  let found: UnsupportedPattern | undefined;
  forEachSubschema(schema, (subschema, _sameValue, pointer) => {
    found ??= findUnsupportedPattern(subschema, `${schemaPath}${pointer}`);
  });
  return found;
}

function refusal(pattern: string): string | undefined {
  try {
    linearRegExp(pattern, 'u');
    return undefined;
  } catch (error) {
    return (error instanceof Error ? error.message : String(error)).replace(/^error parsing regexp: /, '');
  }
}
