/**
 * JSON with object keys sorted at every depth, so two argument objects that
 * mean the same thing serialise to the same bytes (for repeat detection,
 * hashing and approval binding). Plain data whose keys are already in
 * order at every depth (most arguments: one key, or keys sent in order)
 * is serialised as it is, without a sorted copy: the text is the same.
 *
 * @example
 * canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] }); // '{"a":[{"c":3,"d":2}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(isInOrder(value) ? value : sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const item = sortKeys((value as Record<string, unknown>)[key]);
    // An own `__proto__` key: assigning it would set the copy's prototype instead. Every other key is assigned, which
    // costs a tenth of defining it (the audit chain hashes a sorted copy per row).
    if (key === '__proto__') {
      Object.defineProperty(sorted, key, { value: item, enumerable: true, writable: true, configurable: true });
    } else {
      sorted[key] = item;
    }
  }
  return sorted;
}

/**
 * True when `JSON.stringify(value)` already is `JSON.stringify(sortKeys(value))`:
 * arrays, and plain objects whose keys ascend (`JSON.stringify` writes them in
 * `Object.keys` order), all the way down. Anything else (a `Date`, a class
 * instance, an own `toJSON`) takes the sorted copy, as it always did.
 */
function isInOrder(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (!isInOrder(item)) return false;
    return true;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  let previous: string | undefined;
  // `for…in` over the own keys (inherited ones skipped), in `Object.keys` order: no array of keys per object.
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (key === 'toJSON' || (previous !== undefined && !(previous < key))) return false;
    if (!isInOrder((value as Record<string, unknown>)[key])) return false;
    previous = key;
  }
  return true;
}
