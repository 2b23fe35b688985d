import { cutText } from './issue-parts.js';
import { isSchemaObject } from './schema-resolver.js';

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const allDigits = /^[0-9]+$/;
const plainToolName = /^[A-Za-z0-9_.:-]{1,64}$/;
const maxLabelLength = 80;
/** The last name found plain: a run asks about the same tool name again and again. */
let lastPlainName: string | undefined;

/**
 * The JSONPath of `key` inside the value at `path`: `$.order_id`, `$["odd key"]`.
 *
 * @example
 * appendKey('$.items[0]', 'sku'); // '$.items[0].sku'
 */
export function appendKey(path: string, key: string): string {
  return identifier.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/**
 * Follows an ajv `instancePath` (a JSON pointer) through the arguments,
 * returning the JSONPath it names and the value found there.
 *
 * @example
 * locate({ items: [{ sku: 1 }] }, '/items/0/sku'); // { path: '$.items[0].sku', value: 1 }
 */
export function locate(root: unknown, pointer: string): { readonly path: string; readonly value: unknown } {
  if (pointer === '') return { path: '$', value: root };
  let path = '$';
  let value: unknown = root;
  for (const rawSegment of pointer.slice(1).split('/')) {
    const segment = rawSegment.includes('~') ? rawSegment.replaceAll('~1', '/').replaceAll('~0', '~') : rawSegment;
    if (Array.isArray(value)) {
      path += `[${segment}]`;
      value = value[Number(segment)];
    } else {
      path = appendKey(path, segment);
      value = childValue(value, segment);
    }
  }
  return { path, value };
}

/** Levels of a path whose array steps an `arrayLevels` mask can record. */
const maxMaskedLevels = 30;

/**
 * The value an ajv `instancePath` (a JSON pointer) names inside the
 * arguments; undefined when there is none.
 *
 * @example
 * valueAt({ items: [{ sku: 1 }] }, '/items/0/sku'); // 1
 */
export function valueAt(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let value = root;
  for (const segment of pointerSegments(pointer)) {
    value = Array.isArray(value) ? value[Number(segment)] : childValue(value, segment);
  }
  return value;
}

/**
 * The decoded segments of a non-empty JSON pointer (`~1` is `/`, `~0` is `~`).
 *
 * @example
 * pointerSegments('/items/0/a~1b'); // ['items', '0', 'a/b']
 */
export function pointerSegments(pointer: string): string[] {
  const segments = pointer.slice(1).split('/');
  for (let index = 0; index < segments.length; index += 1) {
    const segment = segments[index] ?? '';
    if (segment.includes('~')) segments[index] = segment.replaceAll('~1', '/').replaceAll('~0', '~');
  }
  return segments;
}

/**
 * The decoded segments of a JSON pointer up to its last all-digit one; none
 * when no segment is all digits. Only an all-digit segment can index an
 * array (an array's children are addressed by index, nothing else), so
 * these are all the levels whose kind `arrayLevels` needs to check.
 *
 * @example
 * segmentsToLastIndex('/items/0/sku'); // ['items', '0']
 * segmentsToLastIndex('/order_id'); // undefined
 */
export function segmentsToLastIndex(pointer: string): string[] | undefined {
  if (!hasIndexSegment(pointer)) return undefined;
  const segments = pointerSegments(pointer);
  let end = segments.length;
  while (end > 0 && !allDigits.test(segments[end - 1] ?? '')) end -= 1;
  return segments.slice(0, end);
}

/**
 * Which levels of a path through the arguments step into an array, as a
 * bitmask (bit n: the value holding segment n is an array); -1 when the
 * path is deeper than the mask can say. Takes the pointer's segments
 * already decoded, so that a path seen before is followed without parsing.
 *
 * @example
 * arrayLevels({ items: [{ sku: 1 }] }, ['items', '0']); // 0b10
 */
export function arrayLevels(root: unknown, segments: readonly string[]): number {
  if (segments.length > maxMaskedLevels) return -1;
  let value = root;
  let arrays = 0;
  for (let level = 0; level < segments.length; level += 1) {
    if (typeof value !== 'object' || value === null) break;
    const segment = segments[level] ?? '';
    if (Array.isArray(value)) {
      arrays |= 1 << level;
      value = value[Number(segment)];
    } else {
      // An inherited value (`constructor`) is never an array, so a plain read cannot change the mask.
      value = (value as Record<string, unknown>)[segment];
    }
  }
  return arrays;
}

/**
 * Whether a JSON pointer has an all-digit segment, the only kind that can
 * index an array.
 *
 * @example
 * hasIndexSegment('/items/0/sku'); // true
 */
export function hasIndexSegment(pointer: string): boolean {
  let digits = 0;
  for (let position = 1; position <= pointer.length; position += 1) {
    const code = position < pointer.length ? pointer.charCodeAt(position) : slash;
    if (code === slash) {
      if (digits > 0) return true;
      digits = 0;
    } else if (digits >= 0 && code >= zero && code <= nine) {
      digits += 1;
    } else {
      digits = -1;
    }
  }
  return false;
}

const slash = 0x2f;
const zero = 0x30;
const nine = 0x39;

/**
 * The value of an object's own property `key`; undefined for anything else
 * (inherited names such as `constructor` included).
 *
 * @example
 * childValue({ a: 1 }, 'a'); // 1
 */
export function childValue(value: unknown, key: string): unknown {
  return isSchemaObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
}

/**
 * How a path is shown between backticks in a message: without the leading
 * `$.`, the tool name for the whole call, cut when very long.
 *
 * @example
 * fieldLabel({ path: '$.items[0].sku', toolName: 'place_order' }); // 'items[0].sku'
 */
export function fieldLabel({ path, toolName }: { path: string; toolName: string }): string {
  if (path === '$') return displayName(toolName);
  const label = (path.startsWith('$.') ? path.slice(2) : path.slice(1)).replaceAll('`', "'");
  return label.length > maxLabelLength ? `${cutText(label, maxLabelLength)}…` : label;
}

/**
 * A tool name as it can safely appear in a message: as is when it looks like
 * a tool name, else quoted and cut.
 *
 * @example
 * displayName('apply_refund'); // 'apply_refund'
 */
export function displayName(name: string): string {
  if (name === lastPlainName) return name;
  if (plainToolName.test(name)) {
    lastPlainName = name;
    return name;
  }
  const shown = name.length > 60 ? `${cutText(name, 60)}…` : name;
  return JSON.stringify(shown).replaceAll('`', "'");
}
