/** Characters one item may keep: a string value, or one element of a list. */
export const TOOL_RESULT_ITEM_CHARS = 800;
/** Characters a whole tool result may keep. */
export const TOOL_RESULT_CHARS = 2000;
/** Key under which a cut JSON object says what was left out. */
export const TRUNCATION_KEY = '_truncated';

/**
 * Field names that identify something (`id`, `order_id`, `refund_no`,
 * `tracking_number`, `sku`, `orderId`): never cut, so the model can ask for
 * the details of what it no longer sees.
 */
const idField = /^(id|key|sku|uuid)$|_(id|no|number|key|sku)$|[a-z](Id|No)$/;

export interface TruncateOptions {
  /** Default {@link TOOL_RESULT_ITEM_CHARS}. */
  readonly maxItemChars?: number;
  /** Default {@link TOOL_RESULT_CHARS}. */
  readonly maxResultChars?: number;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Cuts a tool result down before it enters the conversation, in code, so
 * one large answer cannot flood the context: every string and every list
 * element keeps at most `maxItemChars` characters, the whole result at most
 * `maxResultChars`. Lists lose their last elements first; what was left out
 * is said in place (`…[cut 1234 characters]`) or under `_truncated` with
 * the ids of the omitted elements, so the model can query again for
 * details. Id fields are never cut. Content that is not JSON is cut at the
 * end. Content within the limits comes back unchanged.
 *
 * @example
 * truncateToolResult(JSON.stringify({ hits: manyHits }));
 * // '{"hits":[{"id":"d1","text":"…"},…],"_truncated":{"hits":"37 of 40 items omitted (ids: d4, d5, …)"}}'
 */
export function truncateToolResult(content: string, options: TruncateOptions = {}): string {
  const maxItemChars = options.maxItemChars ?? TOOL_RESULT_ITEM_CHARS;
  const maxResultChars = options.maxResultChars ?? TOOL_RESULT_CHARS;
  // No part of a result can be longer than the whole: a short one is within every limit.
  if (content.length <= Math.min(maxItemChars, maxResultChars)) return content;
  let parsed: Json;
  try {
    parsed = JSON.parse(content) as Json;
  } catch {
    return cutText(content, maxResultChars);
  }
  const limits = { maxItemChars, maxResultChars };
  const shrunk = shrinkItems(parsed, limits);
  if (!shrunk.changed && content.length <= maxResultChars) return content;
  let value = shrunk.value;
  if (JSON.stringify(value).length > maxResultChars) value = dropListElements(value, limits);
  if (JSON.stringify(value).length > maxResultChars) value = dropFields(value, limits);
  const serialised = JSON.stringify(value);
  return serialised.length > maxResultChars ? cutText(serialised, maxResultChars) : serialised;
}

interface Limits {
  readonly maxItemChars: number;
  readonly maxResultChars: number;
}

function cutMarker(cut: number): string {
  return ` …[cut ${cut} characters]`;
}

/** The text cut to at most `max` characters, its marker included. */
function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let keep = Math.max(0, max - cutMarker(text.length).length);
  // Never leave half of a surrogate pair behind.
  if (keep > 0 && /[\uD800-\uDBFF]/.test(text.charAt(keep - 1))) keep -= 1;
  return `${text.slice(0, keep)}${cutMarker(text.length - keep)}`.slice(0, max);
}

function isObject(value: Json): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function size(value: Json): number {
  return JSON.stringify(value).length;
}

/** Cuts strings and list elements to `maxItemChars`, id fields excepted. */
function shrinkItems(value: Json, limits: Limits, key = ''): { value: Json; changed: boolean } {
  if (typeof value === 'string') {
    if (value.length <= limits.maxItemChars || idField.test(key)) return { value, changed: false };
    return { value: cutText(value, limits.maxItemChars), changed: true };
  }
  if (Array.isArray(value)) {
    let changed = false;
    const items = value.map((item) => {
      const shrunk = shrinkItems(item, limits);
      changed ||= shrunk.changed;
      if (size(shrunk.value) <= limits.maxItemChars) return shrunk.value;
      changed = true;
      return fitItem(shrunk.value, limits.maxItemChars);
    });
    return { value: items, changed };
  }
  if (isObject(value)) {
    let changed = false;
    const copy: { [key: string]: Json } = {};
    for (const [field, item] of Object.entries(value)) {
      const shrunk = shrinkItems(item, limits, field);
      changed ||= shrunk.changed;
      setField(copy, field, shrunk.value);
    }
    return { value: copy, changed };
  }
  return { value, changed: false };
}

/**
 * One list element cut to `max` characters: id fields whole, then the other
 * fields smallest first while they fit whole, then the long strings left
 * cut to the room remaining; whatever still does not fit is named under
 * `_truncated`. Fields keep their order.
 */
function fitItem(item: Json, max: number): Json {
  if (!isObject(item)) return typeof item === 'string' ? cutText(item, max) : cutText(JSON.stringify(item), max);
  const entries = Object.entries(item);
  const chosen = new Map<string, Json>();
  const cut: string[] = [];
  const build = (): Json => {
    const kept: { [key: string]: Json } = {};
    for (const [field] of entries) {
      const value = chosen.get(field);
      if (value !== undefined) setField(kept, field, value);
    }
    if (cut.length > 0) setField(kept, TRUNCATION_KEY, `fields cut: ${cut.join(', ')}`);
    return kept;
  };
  for (const [field, value] of entries) if (idField.test(field)) chosen.set(field, value);
  const others = entries
    .filter(([field]) => !idField.test(field) && field !== TRUNCATION_KEY)
    .sort(([, left], [, right]) => size(left) - size(right));
  const pending: [string, Json][] = [];
  for (const [field, value] of others) {
    chosen.set(field, value);
    if (size(build()) > max) {
      chosen.delete(field);
      pending.push([field, value]);
    }
  }
  for (const [field, value] of pending) {
    chosen.set(field, '');
    const room = max - size(build()) - cutMarker(size(value)).length;
    if (typeof value === 'string' && room > 40) chosen.set(field, cutText(value, room));
    else {
      chosen.delete(field);
      cut.push(field);
    }
  }
  // The note on what was cut takes room too: drop the largest kept fields until it fits.
  while (size(build()) > max) {
    const largest = [...chosen].filter(([field]) => !idField.test(field)).sort(([, a], [, b]) => size(b) - size(a))[0];
    if (largest === undefined) break;
    chosen.delete(largest[0]);
    cut.push(largest[0]);
  }
  return build();
}

/** Drops elements from the end of the largest lists until the result fits, naming the omitted ids. */
function dropListElements(value: Json, limits: Limits): Json {
  let current = value;
  const done = new Set<string>();
  for (;;) {
    if (size(current) <= limits.maxResultChars) return current;
    const largest = largestList(current, [], done);
    if (largest === undefined) return current;
    done.add(JSON.stringify(largest.path));
    current = trimList(current, largest.path, limits);
  }
}

type Path = readonly (string | number)[];

function largestList(value: Json, path: Path, done: ReadonlySet<string>): { path: Path; size: number } | undefined {
  let best: { path: Path; size: number } | undefined;
  const consider = (candidate: { path: Path; size: number } | undefined) => {
    if (candidate !== undefined && (best === undefined || candidate.size > best.size)) best = candidate;
  };
  if (Array.isArray(value)) {
    if (value.length > 0 && !done.has(JSON.stringify(path))) consider({ path, size: size(value) });
    value.forEach((item, index) => {
      consider(largestList(item, [...path, index], done));
    });
  } else if (isObject(value)) {
    for (const [field, item] of Object.entries(value)) {
      if (field !== TRUNCATION_KEY) consider(largestList(item, [...path, field], done));
    }
  }
  return best;
}

/**
 * Rebuilds `root` with the list at `path` keeping as many leading elements
 * as fit (found by bisection), and a note saying what was omitted: under
 * `_truncated` in the list's object, or as the list's last element.
 */
function trimList(root: Json, path: Path, limits: Limits): Json {
  const items = getAt(root, path) as Json[];
  const parentPath = path.slice(0, -1);
  const field = path.at(-1);
  const parent = path.length === 0 ? undefined : getAt(root, parentPath);
  const build = (keep: number): Json => {
    if (keep === items.length) return root;
    const note = omissionNote({
      omitted: items.length - keep,
      total: items.length,
      ids: items.slice(keep).flatMap(idOf),
      room: Math.floor(limits.maxResultChars / 4),
    });
    if (typeof field === 'string' && parent !== undefined && isObject(parent)) {
      const withList = setAt(root, path, items.slice(0, keep));
      const markers = getAt(withList, [...parentPath, TRUNCATION_KEY]);
      const notes: { [key: string]: Json } = markers !== undefined && isObject(markers) ? { ...markers } : {};
      setField(notes, field, note);
      return setAt(withList, [...parentPath, TRUNCATION_KEY], notes);
    }
    return setAt(root, path, [...items.slice(0, keep), `[${note}]`]);
  };
  let low = 0;
  let high = items.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (size(build(middle)) <= limits.maxResultChars) low = middle;
    else high = middle - 1;
  }
  return build(low);
}

function omissionNote({
  omitted,
  total,
  ids,
  room,
}: {
  omitted: number;
  total: number;
  ids: readonly string[];
  room: number;
}): string {
  const head = `${omitted} of ${total} items omitted`;
  if (ids.length === 0) return head;
  const named: string[] = [];
  let length = head.length + 8;
  for (const id of ids) {
    if (length + id.length + 2 > room) break;
    named.push(id);
    length += id.length + 2;
  }
  const rest = ids.length - named.length;
  return `${head} (ids: ${named.join(', ')}${rest > 0 ? `, and ${rest} more` : ''})`;
}

function idOf(item: Json): string[] {
  if (!isObject(item)) return [];
  const entry = Object.entries(item).find(([field, value]) => idField.test(field) && isScalar(value));
  return entry === undefined ? [] : [String(entry[1])];
}

function isScalar(value: Json): value is string | number {
  return typeof value === 'string' || typeof value === 'number';
}

/** Drops the largest non-id fields of objects, top level first, until the result fits. */
function dropFields(value: Json, limits: Limits): Json {
  if (!isObject(value)) return value;
  const kept: { [key: string]: Json } = { ...value };
  const cut: string[] = [];
  const candidates = Object.entries(value)
    .filter(([field]) => !idField.test(field) && field !== TRUNCATION_KEY)
    .sort(([, left], [, right]) => size(right) - size(left));
  for (const [field] of candidates) {
    if (size(kept) <= limits.maxResultChars) break;
    delete kept[field];
    cut.push(field);
    setField(kept, TRUNCATION_KEY, mergeNote(value[TRUNCATION_KEY], `fields cut: ${cut.join(', ')}`));
  }
  return kept;
}

function mergeNote(existing: Json | undefined, note: string): Json {
  if (existing === undefined) return note;
  if (isObject(existing)) return { ...existing, fields: note };
  return `${String(existing)}; ${note}`;
}

function getAt(root: Json, path: Path): Json | undefined {
  let current: Json | undefined = root;
  for (const step of path) {
    if (current === undefined) return undefined;
    if (typeof step === 'number') current = Array.isArray(current) ? current[step] : undefined;
    else current = isObject(current) ? current[step] : undefined;
  }
  return current;
}

function setAt(root: Json, path: Path, value: Json): Json {
  if (path.length === 0) return value;
  const [step, ...rest] = path;
  if (typeof step === 'number' && Array.isArray(root)) {
    const copy = [...root];
    copy[step] = setAt(copy[step] as Json, rest, value);
    return copy;
  }
  if (typeof step === 'string' && isObject(root)) {
    const copy = { ...root };
    setField(copy, step, setAt((copy[step] ?? null) as Json, rest, value));
    return copy;
  }
  return root;
}

/** Sets a field even when it is named `__proto__`, which JSON.parse allows as a plain key. */
function setField(target: { [key: string]: Json }, field: string, value: Json): void {
  Object.defineProperty(target, field, { value, enumerable: true, writable: true, configurable: true });
}
