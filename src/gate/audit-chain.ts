import { canonicalJson } from '../util/canonical-json.js';
import { sha256Hex } from '../util/sha256.js';
import type { AuditChainRecord } from './audit-record-hash.js';

/**
 * The audit log as hash chains. Since the second format
 * (`audit-record-hash.ts`) every writer (one `AuditLog` on one node; a
 * SQLite file is one writer) keeps a chain per tenant: each row stores its
 * writer, its place in that chain (`chain_seq`), the hash of the row before
 * it and its own hash over a named, versioned record of what it says, so
 * writers on different nodes never wait for each other and the table's
 * column order means nothing. Rows of the first format (one chain per
 * tenant, a hash over positional values) still verify. A row changed,
 * deleted or slipped in by SQL breaks its chain at that row, and
 * `verifyAuditChain` names it. A row without hashes is accepted only when it
 * is older than the chain (`AuditChainOrigin`, recorded by the migration
 * that started it). Deleting the newest rows of a chain cannot be seen from
 * the chain alone: an anchor (`audit-anchor.ts`), exported and kept
 * elsewhere, names them.
 */

/**
 * The chain a row belongs to: its tenant, `''` for calls without a principal.
 *
 * @example
 * auditChainKey(undefined); // ''
 */
export function auditChainKey(tenantId: string | null | undefined): string {
  return tenantId ?? '';
}

/**
 * The hash of one audit row of the first format (rows written before the
 * second, which still verify): sha256 over the previous row's hash of the
 * same chain (empty for the first) and the canonical JSON of the row's
 * values, positional.
 *
 * @example
 * const hash = auditRowHash({ previousHash: null, values: toAuditRowValues(entry) });
 */
export function auditRowHash({
  previousHash,
  values,
}: {
  previousHash: string | null;
  /** The row's values in the order of `auditWrittenColumns`. */
  values: readonly (string | number | null)[];
}): string {
  return sha256Hex(`${previousHash ?? ''}\n${canonicalJson(hashedValues(values))}`);
}

/**
 * How many values every row of the first format hashes whatever they hold:
 * the columns the audit had when that chain began. A column added since (the
 * tool's definition fingerprint) comes after them and counts only when
 * set, so rows written before it existed still verify, and a value
 * written into it later breaks the row's hash.
 */
export const auditChainBaseValues = 18;

function hashedValues(values: readonly (string | number | null)[]): readonly (string | number | null)[] {
  let end = values.length;
  while (end > auditChainBaseValues && values[end - 1] === null) end -= 1;
  return end === values.length ? values : values.slice(0, end);
}

/** A stored audit row as the chain sees it. */
export interface AuditChainRow {
  readonly auditId: number;
  /** The row's values in the order of `auditWrittenColumns`: what a row of the first format hashed. */
  readonly values: readonly (string | number | null)[];
  /** The same values by name (`at`, `tool`, `arguments`, `tenantId`, …): what a row of the second format hashes. */
  readonly record: AuditChainRecord;
  /** The writer whose chain the row extends; null for a row of the first format (or without hashes). */
  readonly writer: string | null;
  /** The row's place in its writer's chain; null for a row of the first format. */
  readonly seq: number | null;
  readonly previousHash: string | null;
  readonly chainHash: string | null;
}

/**
 * When the chain began, as the store recorded it (`audit_chain_origin`, written
 * by the migration that started it and never changed): a row without hashes is
 * older than the chain only at or below `lastRowId`, older than `startedAt`,
 * and before the log's first chained row; and the rows at or below
 * `lastRowId` may only have become fewer (a purge) since.
 */
export interface AuditChainOrigin {
  /** The newest `audit_id` when the chain began (0 for a log created with it). */
  readonly lastRowId: number;
  /** How many rows the log had then. */
  readonly rowsThen: number;
  /** The database's clock then, in milliseconds since the epoch. */
  readonly startedAt: number;
  /**
   * The store's id (`audit_store`, written once when the store was created);
   * undefined when the record is missing. With the fields above it makes the
   * origin seal (`auditOriginSeal`) every chain begun since links to.
   */
  readonly store?: string | undefined;
}

/** What `verifyAuditChain` found wrong, naming the first row where it shows. */
export interface AuditChainFinding {
  readonly auditId: number;
  readonly tenant: string;
  /**
   * `changed`: the row's content is not what was hashed; `inserted`: the row
   * was not written by the log (also a row without hashes written after the
   * chain began); `deleted`: rows before it are missing; `checkpoint`: a
   * purge checkpoint whose signature does not hold; `origin`: the record of
   * when the chain began is missing (row 0); `truncated`: a chain ends before
   * the head an anchor recorded, or differs from it (the chain's newest row,
   * 0 when none is left); `origin` also: the store's id or the record of
   * when the chain began is not what a chain, a purge checkpoint or the
   * anchor was sealed with (changed since); `anchor`: the anchor belongs to
   * another store (its heads are not checked).
   */
  readonly kind: 'changed' | 'inserted' | 'deleted' | 'checkpoint' | 'origin' | 'truncated' | 'anchor';
  /** One line for a person: which row, what. */
  readonly message: string;
}

/** The newest row of one chain, as `verifyAuditChain` found it. */
export interface AuditChainEnd {
  readonly tenant: string;
  /** The chain's writer; null for a tenant's chain of the first format. */
  readonly writer: string | null;
  /** The row's place in its chain; null for the first format. */
  readonly seq: number | null;
  readonly auditId: number;
  readonly hash: string;
}

/** The outcome of `verifyAuditChain`. */
export interface AuditChainReport {
  readonly ok: boolean;
  /** Rows read. */
  readonly rows: number;
  /** Rows read per tenant (`''`: calls without a tenant), so one tenant can be told his own count alone. */
  readonly tenantRows: Readonly<Record<string, number>>;
  /**
   * The store's id and when its chain began, as the store records them now
   * (undefined when the record is missing): what an anchor of this log signs.
   */
  readonly origin: AuditChainOrigin | undefined;
  /** Rows written before the chain existed (no hash, older than its origin), not checked. */
  readonly unchained: number;
  readonly findings: readonly AuditChainFinding[];
  /**
   * Per tenant, one hash sealing the heads of all its chains
   * (`sealAuditChains`): it changes with every row appended to any of them.
   * An anchor (`auditAnchor`) records every chain's head, signed.
   */
  readonly heads: ReadonlyMap<string, string>;
  /** The newest row of every chain. */
  readonly chains: readonly AuditChainEnd[];
  /** Purge checkpoints whose signature could not be checked (unsigned, or no key configured). */
  readonly unsignedCheckpoints: number;
}

/**
 * One hash over the heads of a tenant's chains: sha256 of the canonical JSON
 * of `['arbiter-audit-seal-v2', { tenant, chains }]`, the chains ordered by
 * writer (the first format's chain, writer null, first).
 *
 * @example
 * const seal = sealAuditChains({ tenant: 'bank', chains: report.chains.filter((chain) => chain.tenant === 'bank') });
 */
export function sealAuditChains({ tenant, chains }: { tenant: string; chains: readonly AuditChainEnd[] }): string {
  const order = (chain: AuditChainEnd) => (chain.writer === null ? '' : `w:${chain.writer}`);
  const heads = [...chains]
    .sort((left, right) => (order(left) < order(right) ? -1 : order(left) > order(right) ? 1 : 0))
    .map(({ writer, seq, auditId, hash }) => ({ writer, seq, auditId, hash }));
  return sha256Hex(canonicalJson(['arbiter-audit-seal-v2', { tenant, chains: heads }]));
}
