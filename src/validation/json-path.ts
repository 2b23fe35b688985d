import { cutText } from './issue-parts.js';
import { isSchemaObject } from './schema-resolver.js';

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
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

/** Levels of a path a `walk` can describe in its `arrays` bitmask. */
const maxMaskedLevels = 30;

/**
 * Follows an ajv `instancePath` through the arguments without building a
 * path: the value found, and a bitmask of the levels that stepped into an
 * array (-1 when the path is deeper than the mask can say).
 *
 * @example
 * walk({ items: [{ sku: 1 }] }, '/items/0/sku'); // { value: 1, arrays: 0b10 }
 */
export function walk(root: unknown, pointer: string): { readonly value: unknown; readonly arrays: number } {
  let value = root;
  let arrays = 0;
  let level = 0;
  for (let start = 1; pointer !== '' && start <= pointer.length; level += 1) {
    const slash = pointer.indexOf('/', start);
    const end = slash === -1 ? pointer.length : slash;
    const raw = pointer.slice(start, end);
    const segment = raw.includes('~') ? raw.replaceAll('~1', '/').replaceAll('~0', '~') : raw;
    if (Array.isArray(value)) {
      if (level < maxMaskedLevels) arrays |= 1 << level;
      value = value[Number(segment)];
    } else {
      value = childValue(value, segment);
    }
    start = end + 1;
  }
  return { value, arrays: level > maxMaskedLevels ? -1 : arrays };
}

/**
 * The `arrays` bitmask of `walk`, without walking when no segment of the
 * pointer can be an array index (all-digit), which is the common case.
 *
 * @example
 * arrayLevels({ order_id: 1 }, '/order_id'); // 0
 */
export function arrayLevels(root: unknown, pointer: string): number {
  return hasIndexSegment(pointer) ? arrayMask(root, pointer) : 0;
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

/**
 * `walk(…).arrays` with plain property reads: an inherited value (`constructor`)
 * is never an array, so it cannot change the mask.
 */
function arrayMask(root: unknown, pointer: string): number {
  let value = root;
  let arrays = 0;
  let level = 0;
  for (let start = 1; start <= pointer.length; level += 1) {
    const slash = pointer.indexOf('/', start);
    const end = slash === -1 ? pointer.length : slash;
    if (typeof value !== 'object' || value === null) return level > maxMaskedLevels ? -1 : arrays;
    const raw = pointer.slice(start, end);
    if (Array.isArray(value)) {
      if (level < maxMaskedLevels) arrays |= 1 << level;
      value = value[Number(raw)];
    } else {
      const segment = raw.includes('~') ? raw.replaceAll('~1', '/').replaceAll('~0', '~') : raw;
      value = (value as Record<string, unknown>)[segment];
    }
    start = end + 1;
  }
  return level > maxMaskedLevels ? -1 : arrays;
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
