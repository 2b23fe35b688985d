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
  const fields: Record<string, string | number | undefined> = {};
  for (const name of names) fields[name] = record[name] ?? undefined;
  return sha256Hex(tupleText(fields, link));
}

/** The canonical JSON of the tuple, `fields` holding the record's fields in ascending order (undefined: left out). */
function tupleText(fields: Readonly<Record<string, unknown>>, link: AuditChainLink): string {
  return JSON.stringify([
    auditRecordFormat,
    { previous: link.previousHash, record: fields, seq: link.seq, writer: link.writer },
  ]);
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
 * for it. The canonical JSON is the tuple's `JSON.stringify` with the
 * fields already in order (`recordObject`), null ones left out: the text
 * `canonicalJson` gives, without a sorted copy of it per row. A field
 * named `__proto__` or like an array index (which `JSON.stringify` would
 * move to the front) takes `canonicalJson` itself.
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
  const record = recordObject(fields);
  if (record === undefined) return sha256Hex(canonicalTuple({ fields, values, link }));
  for (const { name, key } of fields) record[name] = values[key] ?? undefined;
  return sha256Hex(tupleText(record, link));
}

/**
 * For a list of fields, one object with those properties in that order,
 * made once (by `JSON.parse`, so its properties are fast ones) and filled
 * anew for each row: `JSON.stringify` writes its fields in order and
 * leaves out the undefined ones (a null field), so a row's text costs one
 * string and no object. Undefined for a list naming `__proto__` or an
 * array index, which an object would not keep in order.
 */
const recordObjects = new WeakMap<readonly AuditRecordField<string | number>[], Record<string, unknown>>();

function recordObject(fields: readonly AuditRecordField<string | number>[]): Record<string, unknown> | undefined {
  let record = recordObjects.get(fields);
  if (record === undefined) {
    if (fields.some(({ name }) => name === '__proto__' || arrayIndex.test(name))) return undefined;
    record = JSON.parse(`{${fields.map(({ name }) => `${JSON.stringify(name)}:null`).join(',')}}`) as Record<
      string,
      unknown
    >;
    recordObjects.set(fields, record);
  }
  return record;
}

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
