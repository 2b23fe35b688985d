import type { RegExpLike } from 'ajv/dist/types/index.js';
import { editDistance } from '../util/edit-distance.js';
import { linearRegExp } from './linear-reg-exp.js';
import { isSchemaObject } from './schema-resolver.js';

/** Below this similarity (0–1) a sent field is not offered as the missing one, unless it is the only pair. */
const minSimilarity = 0.5;

/**
 * Pairs required fields that are missing with undeclared fields the model
 * sent instead (`question` for `statement`), so the message can say "did you
 * mean". A lone missing field and a lone unknown one are paired however
 * different; otherwise pairs are made, best first, one-to-one, when the
 * names are close: edit distance, or shared words (`source_url` /
 * `sourceUrl`).
 *
 * @example
 * suggestFieldMatch({ missing: ['statement'], unknown: ['question'] }); // Map { 'statement' => 'question' }
 */
export function suggestFieldMatch({
  missing,
  unknown,
}: {
  /** Required fields absent from the object. */
  missing: readonly string[];
  /** Fields sent that the schema does not declare. */
  unknown: readonly string[];
}): Map<string, string> {
  const pairs = new Map<string, string>();
  const [onlyMissing] = missing;
  const [onlyUnknown] = unknown;
  if (missing.length === 1 && unknown.length === 1 && onlyMissing !== undefined && onlyUnknown !== undefined) {
    return pairs.set(onlyMissing, onlyUnknown);
  }
  if (missing.length * unknown.length > 10_000) return pairs;
  const scored = missing
    .flatMap((wanted) => unknown.map((sent) => ({ wanted, sent, score: similarity(wanted, sent) })))
    .filter(({ score }) => score >= minSimilarity)
    .sort((left, right) => right.score - left.score);
  const taken = new Set<string>();
  for (const { wanted, sent } of scored) {
    if (pairs.has(wanted) || taken.has(sent)) continue;
    pairs.set(wanted, sent);
    taken.add(sent);
  }
  return pairs;
}

function similarity(left: string, right: string): number {
  const a = words(left);
  const b = words(right);
  const joinedA = a.join('');
  const joinedB = b.join('');
  const longest = Math.max(joinedA.length, joinedB.length, 1);
  const byEdits = 1 - boundedEditDistance(joinedA, joinedB) / longest;
  const shared = a.filter((word) => b.includes(word)).length;
  const byWords = shared / Math.max(new Set([...a, ...b]).size, 1);
  return Math.max(byEdits, byWords);
}

/** Lower-case words of a field name: `sourceURL`, `source-url` and `source_url` all give ['source', 'url']. */
function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9\p{L}]+/u)
    .filter((word) => word !== '');
}

/** Names longer than this are compared by length alone: a schema's field names must not cost quadratic time. */
const longestComparedName = 64;

function boundedEditDistance(left: string, right: string): number {
  if (left.length > longestComparedName || right.length > longestComparedName)
    return Math.max(left.length, right.length);
  return editDistance(left, right);
}

/**
 * The missing required fields of one object sent, each with the undeclared
 * field that is likely it (see `suggestFieldMatch`).
 *
 * @example
 * misnamedFields({ value: { question: 'x' }, schema: { properties: { statement: {} }, required: ['statement'] } });
 * // Map { 'statement' => 'question' }
 */
export function misnamedFields({ value, schema }: { value: unknown; schema: unknown }): Map<string, string> {
  if (!isSchemaObject(value) || !isSchemaObject(schema) || !Array.isArray(schema['required'])) return new Map();
  const properties = isSchemaObject(schema['properties']) ? schema['properties'] : {};
  const patterns = isSchemaObject(schema['patternProperties']) ? Object.keys(schema['patternProperties']) : [];
  const missing = schema['required'].filter(
    (name): name is string => typeof name === 'string' && !Object.hasOwn(value, name),
  );
  const unknown = Object.keys(value).filter(
    (key) => !Object.hasOwn(properties, key) && !patterns.some((pattern) => matches(pattern, key)),
  );
  if (missing.length === 0 || unknown.length === 0) return new Map();
  return suggestFieldMatch({ missing, unknown });
}

/** Patterns of `patternProperties` as compiled once; `undefined` for one the engine refuses. */
const compiledPatterns = new Map<string, RegExpLike | undefined>();

function matches(pattern: string, key: string): boolean {
  if (!compiledPatterns.has(pattern)) {
    let compiled: RegExpLike | undefined;
    try {
      compiled = linearRegExp(pattern, 'u');
    } catch {
      compiled = undefined;
    }
    compiledPatterns.set(pattern, compiled);
  }
  return compiledPatterns.get(pattern)?.test(key) ?? false;
}
