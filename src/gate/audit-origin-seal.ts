import { canonicalJson } from '../util/canonical-json.js';
import { sha256Hex } from '../util/sha256.js';
import type { AuditChainHead } from './audit-record-hash.js';

/** The tag of the origin seal's hashed tuple. */
export const auditOriginFormat = 'arbiter-audit-origin-v1';

/**
 * What a store says of its audit chain's beginning: its id (`audit_store`,
 * written once when the store was created) and when the chain began
 * (`audit_chain_origin`).
 */
export interface AuditChainOriginRecord {
  /** The store's id. */
  readonly store: string;
  /** The newest `audit_id` when the chain began (0 for a store created with it). */
  readonly lastRowId: number;
  /** How many rows the log had then. */
  readonly rowsThen: number;
  /** The database's clock then, in milliseconds since the epoch. */
  readonly startedAt: number;
}

/**
 * The origin seal: sha256 of the canonical JSON of
 * `['arbiter-audit-origin-v1', { store, lastRowId, rowsThen, startedAt }]`.
 * It is the previous hash of the first row of every chain a writer begins
 * (so every row of that chain covers the store's id and origin), and it is
 * recorded in every purge checkpoint: an origin widened or narrowed later,
 * or a store id changed, no longer matches what the chains were linked to.
 *
 * @example
 * const seal = auditOriginSeal({ store: '9f2c…', lastRowId: 0, rowsThen: 0, startedAt: 1764979200000 });
 */
export function auditOriginSeal({ store, lastRowId, rowsThen, startedAt }: AuditChainOriginRecord): string {
  return sha256Hex(canonicalJson([auditOriginFormat, { store, lastRowId, rowsThen, startedAt }]));
}

/**
 * Where a writer's new chain starts: at place 0 with the origin seal as its
 * hash, so its first row (place 1) links to the seal; null (the first row's
 * previous hash null) for a store without an id or origin (a schema before
 * migrations 21 and 26).
 *
 * @example
 * const head = heads.get(tenant) ?? auditGenesisHead(origin);
 */
export function auditGenesisHead(origin: AuditChainOriginRecord | undefined): AuditChainHead | null {
  return origin === undefined ? null : { seq: 0, hash: auditOriginSeal(origin) };
}
