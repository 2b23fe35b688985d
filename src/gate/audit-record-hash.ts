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
  return sha256Hex(auditRecordText({ record, link }));
}

/**
 * The canonical JSON `auditRecordHash` hashes, written field by field: the
 * text `canonicalJson` gives for the tuple, without a sorted copy of it for
 * every row (a record whose fields already ascend, as the stores build
 * them, is not sorted either). A field named like an array index, which
 * `JSON.stringify` would move to the front, takes `canonicalJson` itself.
 */
function auditRecordText({ record, link }: { record: AuditChainRecord; link: AuditChainLink }): string {
  const names = Object.keys(record);
  if (!ascending(names)) names.sort();
  let fields = '';
  for (const name of names) {
    const value = record[name];
    if (value === null || value === undefined) continue;
    if (arrayIndex.test(name)) return canonicalTuple({ record, link });
    fields += `${fields === '' ? '' : ','}${quotedName(name)}${JSON.stringify(value)}`;
  }
  return `[${JSON.stringify(auditRecordFormat)},{"previous":${JSON.stringify(link.previousHash)},"record":{${fields}},"seq":${JSON.stringify(link.seq)},"writer":${JSON.stringify(link.writer)}}]`;
}

const arrayIndex = /^(?:0|[1-9]\d*)$/;

/** `"name":` for each field name seen (the audit's columns: a few dozen), written once. */
const quotedNames = new Map<string, string>();

function quotedName(name: string): string {
  let quoted = quotedNames.get(name);
  if (quoted === undefined) {
    quoted = `${JSON.stringify(name)}:`;
    if (quotedNames.size < 256) quotedNames.set(name, quoted);
  }
  return quoted;
}

function canonicalTuple({ record, link }: { record: AuditChainRecord; link: AuditChainLink }): string {
  const fields: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(record)) {
    if (value !== null)
      Object.defineProperty(fields, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return canonicalJson([
    auditRecordFormat,
    { record: fields, writer: link.writer, seq: link.seq, previous: link.previousHash },
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
