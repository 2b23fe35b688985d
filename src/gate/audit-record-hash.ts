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
  return auditFieldsHash({ fields: names.map((name) => ({ name, key: name })), values: record, link });
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
 * for it. The canonical JSON is written field by field, `"name":value`
 * in that order, null fields left out: the text `canonicalJson` gives for
 * the tuple, without a sorted copy of it per row. A field named
 * `__proto__` or like an array index (which `JSON.stringify` would move
 * to the front) takes `canonicalJson` itself.
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
  let record = '';
  for (const { name, key } of fields) {
    const value = values[key];
    if (value === null || value === undefined) continue;
    const quoted = quotedName(name);
    if (quoted === undefined) return sha256Hex(canonicalTuple({ fields, values, link }));
    record += `${record === '' ? '' : ','}${quoted}${JSON.stringify(value)}`;
  }
  return sha256Hex(
    `[${quotedFormat},{"previous":${JSON.stringify(link.previousHash)},"record":{${record}},"seq":${JSON.stringify(link.seq)},"writer":${JSON.stringify(link.writer)}}]`,
  );
}

const quotedFormat = JSON.stringify(auditRecordFormat);

/** `"name":` for each field name seen (the audit's columns: a few dozen), written once. */
const quotedNames = new Map<string, string>();

/** `"name":`, or undefined for a name `JSON.stringify` would not write in its place (`__proto__`, an array index). */
function quotedName(name: string): string | undefined {
  let quoted = quotedNames.get(name);
  if (quoted === undefined) {
    if (name === '__proto__' || arrayIndex.test(name)) return undefined;
    quoted = `${JSON.stringify(name)}:`;
    if (quotedNames.size < 256) quotedNames.set(name, quoted);
  }
  return quoted;
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
