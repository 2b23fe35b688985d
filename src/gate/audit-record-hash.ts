import { canonicalJson } from '../util/canonical-json.js';
import { sha256Hex } from '../util/sha256.js';

/**
 * The tag of the audit chain's second format, the first element of every
 * hashed tuple. A change of what a field means, or a field that must be
 * hashed even when empty, takes a new tag; the verifier keeps every tag it
 * knows.
 */
export const auditRecordFormat = 'arbiter-audit-v2';

/**
 * What an audit row records, by name (`at`, `sessionId`, `runId`, `tool`,
 * `arguments` as stored, `tenantId`, …): the order of the table's columns
 * plays no part. A field that is null is left out, so a column added later
 * (nullable) leaves the hash of every row written before it unchanged, and a
 * value written into it later breaks the row's hash.
 */
export type AuditChainRecord = Readonly<Record<string, string | number | null>>;

/** Where a row sits in its chain: the writer's chain of one tenant, counted from 1. */
export interface AuditChainLink {
  /** The writer (one `AuditLog` on one node, or one SQLite file) whose chain of the tenant this row extends. */
  readonly writer: string;
  /** 1 for the first row of the chain, then one more per row. */
  readonly seq: number;
  /** The hash of the row before it in the chain (`seq - 1`); null for the first. */
  readonly previousHash: string | null;
}

/** The newest row of a chain as its writer keeps it. */
export interface AuditChainHead {
  readonly seq: number;
  readonly hash: string;
}

/**
 * The hash of one row of the second format: sha256 over the canonical JSON
 * of `['arbiter-audit-v2', { record, writer, seq, previous }]`, the record's
 * null fields left out. Like vercel/ai's tool-approval signature, a tagged
 * tuple of named fields, so a reader knows what was hashed without knowing
 * the table.
 *
 * @example
 * const hash = auditRecordHash({ record: { at: 1, tool: 'send_payment', tenantId: 'bank' }, link: { writer: 'w1', seq: 1, previousHash: null } });
 */
export function auditRecordHash({ record, link }: { record: AuditChainRecord; link: AuditChainLink }): string {
  const names = Object.keys(record);
  if (!ascending(names)) names.sort();
  if (names.some((name) => name === '__proto__' || arrayIndex.test(name))) {
    return sha256Hex(canonicalTuple({ fields: names.map((name) => ({ name, key: name })), values: record, link }));
  }
  let text = '{';
  for (const name of names) {
    const value = record[name];
    if (value === null || value === undefined) continue;
    text += `${text === '{' ? '' : ','}${jsonValue(name)}:${jsonValue(value)}`;
  }
  return tupleHash(tupleText(text, link));
}

/**
 * The canonical JSON of the tuple, `record` the record's own text less its
 * closing brace (`{` for an empty record): the text `JSON.stringify` gives
 * for `[format, { previous, record, seq, writer }]`, its keys already in
 * ascending order. Written in as few pieces as it can: each piece is one
 * more string node that Node flattens again before hashing (issue 48).
 */
function tupleText(record: string, link: AuditChainLink): string {
  const { previousHash, writer } = link;
  if (writer !== lastWriter) {
    lastWriter = writer;
    lastWriterText = `,"writer":${jsonValue(writer)}}]`;
  }
  const rest = `},"seq":${jsonValue(link.seq)}${lastWriterText}`;
  if (previousHash === null) return `${tupleOpening}null,"record":${record}${rest}`;
  // The previous row's hash is most often the one hashed just before (a chain linked row after row): hex, with
  // nothing to escape, so it is quoted as it is without testing it again. Any other text is tested as usual.
  if (previousHash === lastTupleHash || !escaped.test(previousHash))
    return `${tupleOpening}"${previousHash}","record":${record}${rest}`;
  return `${tupleOpening}${JSON.stringify(previousHash)},"record":${record}${rest}`;
}

const tupleOpening = `["${auditRecordFormat}",{"previous":`;

/** The hash `tupleHash` gave last: hex, so known to need no escaping when it comes back as a row's `previous`. */
let lastTupleHash = '';
/** The writer of the last tuple written, and its text (`,"writer":…}]`): one writer links a chain's rows. */
let lastWriter = '';
let lastWriterText = ',"writer":""}]';

/** sha256 of a tuple's text, remembered as `lastTupleHash`. */
function tupleHash(text: string): string {
  const hash = sha256Hex(text);
  lastTupleHash = hash;
  return hash;
}

/** A character `JSON.stringify` writes escaped in a string: a quote, a backslash, a control character, a surrogate. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are those JSON.stringify escapes
const escaped = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * `JSON.stringify(value)` for a field's value, without its call for the
 * usual ones: a string with nothing to escape is quoted as it is, a finite
 * number written as `String` writes it (the same digits); anything else
 * takes `JSON.stringify` itself.
 */
function jsonValue(value: unknown): string {
  if (typeof value === 'string') return escaped.test(value) ? JSON.stringify(value) : `"${value}"`;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return JSON.stringify(value);
}

/** A field of a record as `auditFieldsHash` reads it: its name, and where its value is in the values given. */
export interface AuditRecordField<Key extends string | number> {
  readonly name: string;
  readonly key: Key;
}

/**
 * `auditRecordHash` of the record whose field `name` holds `values[key]`,
 * for each of `fields` (in ascending order of `name`; a store lists its
 * columns so once): the hash of a stored row without a record object made
 * for it. The record's text is written field by field (`recordWriter`),
 * null ones left out: the text `canonicalJson` gives, without a sorted
 * copy or an object per row. A field named `__proto__` or like an array
 * index (which `JSON.stringify` would move to the front) takes
 * `canonicalJson` itself.
 *
 * @example
 * const hash = auditFieldsHash({ fields: [{ name: 'at', key: 0 }, { name: 'tool', key: 1 }], values: [1, 'send_payment'], link });
 */
export function auditFieldsHash<Key extends string | number>({
  fields,
  values,
  link,
}: {
  fields: readonly AuditRecordField<Key>[];
  values: Readonly<Record<Key, string | number | null | undefined>>;
  link: AuditChainLink;
}): string {
  const writer = recordWriter(fields);
  if (writer === undefined) return sha256Hex(canonicalTuple({ fields, values, link }));
  return tupleHash(tupleText(writer(values), link));
}

/**
 * Writes a record's JSON object text from its values, the fields in the order given, null and undefined left out,
 * without its closing brace (`tupleText` writes it).
 */
type RecordWriter = (values: Readonly<Record<string | number, string | number | null | undefined>>) => string;

/**
 * For a list of fields, the writer of a record's text, made once per list
 * (a store's list is one constant): each field's `{"name":` and `,"name":`
 * written in advance, so a row's text is its values' `JSON.stringify` and
 * one concatenation each — the same text as `JSON.stringify` of an object
 * with those properties in that order, where it leaves out the undefined
 * ones. Undefined for a list naming `__proto__` or an array index, which
 * `canonicalJson` (an object) would not keep in that order.
 */
const recordWriters = new WeakMap<readonly AuditRecordField<string | number>[], RecordWriter>();

function recordWriter(fields: readonly AuditRecordField<string | number>[]): RecordWriter | undefined {
  let writer = recordWriters.get(fields);
  if (writer === undefined) {
    if (fields.some(({ name }) => name === '__proto__' || arrayIndex.test(name))) return undefined;
    const keys = fields.map(({ key }) => key);
    const first = fields.map(({ name }) => `{${JSON.stringify(name)}:`);
    const next = fields.map(({ name }) => `,${JSON.stringify(name)}:`);
    // The same with a string value's opening quote: one piece less per string field.
    const firstQuoted = first.map((text) => `${text}"`);
    const nextQuoted = next.map((text) => `${text}"`);
    // Each field's last value and its `,"name":value` text: most of a row repeats the row before it (its run,
    // tool, side effect, decision, outcome), whose text is then neither escape-tested nor concatenated again.
    const lastValues: (string | number | undefined)[] = fields.map(() => undefined);
    const lastTexts: string[] = fields.map(() => '');
    writer = (values) => {
      let text = '{';
      for (let index = 0; index < keys.length; index += 1) {
        const value = values[keys[index] as string | number];
        if (value === null || value === undefined) continue;
        if (text === '{') {
          text = fieldText(first[index] as string, firstQuoted[index] as string, value);
        } else if (value === lastValues[index]) {
          text += lastTexts[index] as string;
        } else {
          const field = fieldText(next[index] as string, nextQuoted[index] as string, value);
          lastValues[index] = value;
          lastTexts[index] = field;
          text += field;
        }
      }
      return text;
    };
    recordWriters.set(fields, writer);
  }
  return writer;
}

/**
 * A field's text after its `opening` (`,"name":`, or `{"name":` for the
 * first): `opening + jsonValue(value)`, in fewer pieces. A string whose
 * second character is a quote (a JSON text such as the stored arguments,
 * `{"order_id":…}`) has something to escape: it goes to `JSON.stringify`
 * without testing it first.
 */
function fieldText(opening: string, openingQuoted: string, value: string | number): string {
  if (typeof value !== 'string') return opening + jsonValue(value);
  if (value.charCodeAt(1) === quote || escaped.test(value)) return opening + JSON.stringify(value);
  return `${openingQuoted}${value}"`;
}

const quote = 0x22;

const arrayIndex = /^(?:0|[1-9]\d*)$/;

function canonicalTuple<Key extends string | number>({
  fields,
  values,
  link,
}: {
  fields: readonly AuditRecordField<Key>[];
  values: Readonly<Record<Key, string | number | null | undefined>>;
  link: AuditChainLink;
}): string {
  const record: Record<string, string | number> = {};
  for (const { name, key } of fields) {
    const value = values[key];
    if (value === null || value === undefined) continue;
    Object.defineProperty(record, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return canonicalJson([
    auditRecordFormat,
    { record, writer: link.writer, seq: link.seq, previous: link.previousHash },
  ]);
}

function ascending(names: readonly string[]): boolean {
  for (let index = 1; index < names.length; index += 1) {
    if (!((names[index - 1] as string) < (names[index] as string))) return false;
  }
  return true;
}

/**
 * Links records, oldest first, onto the head of one writer's chain of one
 * tenant (null: the chain starts here). Returns each row's link and hash and
 * the chain's new head; `head` is not changed, so a write that fails leaves
 * the caller's head where it was.
 *
 * @example
 * const { links, head: next } = linkAuditRecords({ records, writer, head });
 */
export function linkAuditRecords({
  records,
  writer,
  head,
}: {
  records: readonly AuditChainRecord[];
  writer: string;
  head: AuditChainHead | null;
}): { links: (AuditChainLink & { chainHash: string })[]; head: AuditChainHead | null } {
  let current = head;
  const links = records.map((record) => {
    const link = { writer, seq: (current?.seq ?? 0) + 1, previousHash: current?.hash ?? null };
    const chainHash = auditRecordHash({ record, link });
    current = { seq: link.seq, hash: chainHash };
    return { ...link, chainHash };
  });
  return { links, head: current };
}
