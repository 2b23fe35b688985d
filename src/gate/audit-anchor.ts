import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigurationError } from '../errors/configuration-error.js';
import { canonicalJson } from '../util/canonical-json.js';
import type { AuditChainEnd, AuditChainReport } from './audit-chain.js';
import { checkAuditKey } from './audit-key.js';
import type { CheckedAuditAnchor } from './verify-audit-chain.js';

/** The tag of an anchor's signed tuple. */
export const auditAnchorFormat = 'arbiter-audit-anchor-v2';

/** The tag of anchors written before they named their store and origin; still read, their heads still checked. */
export const auditAnchorFormatV1 = 'arbiter-audit-anchor-v1';

/** When a store's chain began, as an anchor signs it (`audit_chain_origin`). */
export interface AuditAnchorOrigin {
  /** The newest `audit_id` when the chain began (0 for a store created with it). */
  readonly lastRowId: number;
  /** How many rows the log had then. */
  readonly rowsThen: number;
  /** The database's clock then, in milliseconds since the epoch. */
  readonly startedAt: number;
}

/**
 * The heads of every chain of an audit log at one moment, with the store
 * they belong to and when its chain began, signed: kept outside the
 * database (another system, a ticket, a printout), it lets
 * `verifyAuditChain` name rows deleted from the end of a chain after it,
 * which the chain alone cannot show, a chain rewritten since, a record of
 * the chain's beginning widened or narrowed since, and an anchor of
 * another store.
 */
export interface AuditAnchor {
  readonly format: typeof auditAnchorFormat;
  /** When it was taken, in milliseconds since the epoch. */
  readonly at: number;
  /** How many rows the log had. */
  readonly rows: number;
  /** The store's id (`audit_store`, written once when the store was created). */
  readonly store: string;
  /** When the store's chain began (`audit_chain_origin`): which rows may lack hashes. */
  readonly origin: AuditAnchorOrigin;
  /** The newest row of every chain. */
  readonly chains: readonly AuditChainEnd[];
  /**
   * HMAC-SHA256 (hex) with `ARBITER_AUDIT_KEY` of the canonical JSON of
   * `['arbiter-audit-anchor-v2', { at, rows, store, origin, chains }]`.
   */
  readonly signature: string;
}

/**
 * The anchor of a verified log: its store, its origin and its chains'
 * heads, signed with `key` (32 characters or more: `checkAuditKey`).
 *
 * @example
 * const anchor = auditAnchor({ report: await audit.verifyChain(), at: Date.now(), key: process.env.ARBITER_AUDIT_KEY });
 * writeFileSync('anchor.json', JSON.stringify(anchor));
 */
export function auditAnchor({
  report,
  at,
  key,
}: {
  report: AuditChainReport;
  at: number;
  key: string | undefined;
}): AuditAnchor {
  const signingKey = checkAuditKey(key);
  const { origin } = report;
  if (origin?.store === undefined) {
    throw new ConfigurationError({
      setting: 'audit_store',
      message:
        'the audit log has no store id or no record of when its chain began (audit_store, audit_chain_origin): no anchor can name it',
    });
  }
  const chains = [...report.chains].sort((left, right) => left.auditId - right.auditId);
  const signed = {
    at,
    rows: report.rows,
    store: origin.store,
    origin: { lastRowId: origin.lastRowId, rowsThen: origin.rowsThen, startedAt: origin.startedAt },
    chains,
  };
  return { format: auditAnchorFormat, ...signed, signature: anchorSignature(signed, signingKey) };
}

/** What `checkAuditAnchor` made of an anchor: what `verifyAuditChain` takes as `anchor`, or why not. */
export type AuditAnchorCheck =
  | { readonly ok: true; readonly anchor: CheckedAuditAnchor }
  | { readonly ok: false; readonly reason: string };

/**
 * Reads an anchor (parsed JSON from anywhere) and checks its signature
 * with `key`. An anchor of the first format (`arbiter-audit-anchor-v1`,
 * without store and origin) is still read: its heads are checked, its
 * `store` and `origin` are undefined.
 *
 * @example
 * const check = checkAuditAnchor({ anchor: JSON.parse(readFileSync('anchor.json', 'utf8')), key });
 * if (check.ok) await audit.verifyChain({ key, anchor: check.anchor });
 */
export function checkAuditAnchor({ anchor, key }: { anchor: unknown; key: string }): AuditAnchorCheck {
  if (typeof anchor !== 'object' || anchor === null) return { ok: false, reason: 'not an audit anchor' };
  const { format, at, rows, store, origin, chains, signature } = anchor as Record<string, unknown>;
  if (format !== auditAnchorFormat && format !== auditAnchorFormatV1)
    return { ok: false, reason: `not an audit anchor (format is not ${auditAnchorFormat})` };
  if (typeof at !== 'number' || typeof rows !== 'number' || !Array.isArray(chains) || typeof signature !== 'string') {
    return { ok: false, reason: 'audit anchor is incomplete (at, rows, chains, signature)' };
  }
  if (!chains.every(isChainEnd)) return { ok: false, reason: 'audit anchor has a malformed chain' };
  let named: { store: string; origin: AuditAnchorOrigin } | undefined;
  if (format === auditAnchorFormat) {
    if (typeof store !== 'string' || !isOrigin(origin)) {
      return { ok: false, reason: 'audit anchor is incomplete (store, origin)' };
    }
    named = { store, origin: { lastRowId: origin.lastRowId, rowsThen: origin.rowsThen, startedAt: origin.startedAt } };
  }
  const expected = Buffer.from(
    named === undefined
      ? anchorSignatureV1({ at, rows, chains }, key)
      : anchorSignature({ at, rows, ...named, chains }, key),
    'hex',
  );
  const given = Buffer.from(signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'audit anchor is not signed with the configured ARBITER_AUDIT_KEY' };
  }
  return {
    ok: true,
    anchor: { at, store: named?.store, origin: named?.origin, chains: chains.map(chainEnd) },
  };
}

const chainEnd = ({ tenant, writer, seq, auditId, hash }: AuditChainEnd): AuditChainEnd => ({
  tenant,
  writer,
  seq,
  auditId,
  hash,
});

function anchorSignature(
  {
    at,
    rows,
    store,
    origin,
    chains,
  }: { at: number; rows: number; store: string; origin: AuditAnchorOrigin; chains: readonly AuditChainEnd[] },
  key: string,
): string {
  return createHmac('sha256', key)
    .update(canonicalJson([auditAnchorFormat, { at, rows, store, origin, chains: chains.map(chainEnd) }]))
    .digest('hex');
}

function anchorSignatureV1(
  { at, rows, chains }: { at: number; rows: number; chains: readonly AuditChainEnd[] },
  key: string,
): string {
  return createHmac('sha256', key)
    .update(canonicalJson([auditAnchorFormatV1, { at, rows, chains: chains.map(chainEnd) }]))
    .digest('hex');
}

function isOrigin(value: unknown): value is AuditAnchorOrigin {
  if (typeof value !== 'object' || value === null) return false;
  const { lastRowId, rowsThen, startedAt } = value as Record<string, unknown>;
  return typeof lastRowId === 'number' && typeof rowsThen === 'number' && typeof startedAt === 'number';
}

function isChainEnd(value: unknown): value is AuditChainEnd {
  if (typeof value !== 'object' || value === null) return false;
  const { tenant, writer, seq, auditId, hash } = value as Record<string, unknown>;
  return (
    typeof tenant === 'string' &&
    (writer === null || typeof writer === 'string') &&
    (seq === null || typeof seq === 'number') &&
    typeof auditId === 'number' &&
    typeof hash === 'string'
  );
}
