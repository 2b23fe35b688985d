import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../util/canonical-json.js';
import type { AuditChainEnd, AuditChainReport } from './audit-chain.js';
import type { AnchoredChain } from './verify-audit-chain.js';

/** The tag of an anchor's signed tuple. */
export const auditAnchorFormat = 'arbiter-audit-anchor-v1';

/**
 * The heads of every chain of an audit log at one moment, signed: kept
 * outside the database (another system, a ticket, a printout), it lets
 * `verifyAuditChain` name rows deleted from the end of a chain after it,
 * which the chain alone cannot show, and a chain rewritten since.
 */
export interface AuditAnchor {
  readonly format: typeof auditAnchorFormat;
  /** When it was taken, in milliseconds since the epoch. */
  readonly at: number;
  /** How many rows the log had. */
  readonly rows: number;
  /** The newest row of every chain. */
  readonly chains: readonly AuditChainEnd[];
  /**
   * HMAC-SHA256 (hex) with `ARBITER_AUDIT_KEY` of the canonical JSON of
   * `['arbiter-audit-anchor-v1', { at, rows, chains }]`.
   */
  readonly signature: string;
}

/**
 * The anchor of a verified log: its chains' heads, signed with `key`.
 *
 * @example
 * const anchor = auditAnchor({ report: audit.verifyChain(), at: Date.now(), key: process.env.ARBITER_AUDIT_KEY });
 * writeFileSync('anchor.json', JSON.stringify(anchor));
 */
export function auditAnchor({ report, at, key }: { report: AuditChainReport; at: number; key: string }): AuditAnchor {
  const chains = [...report.chains].sort((left, right) => left.auditId - right.auditId);
  return {
    format: auditAnchorFormat,
    at,
    rows: report.rows,
    chains,
    signature: anchorSignature({ at, rows: report.rows, chains }, key),
  };
}

/** What `checkAuditAnchor` made of an anchor. */
export type AuditAnchorCheck =
  | { readonly ok: true; readonly anchor: AuditAnchor; readonly chains: readonly AnchoredChain[] }
  | { readonly ok: false; readonly reason: string };

/**
 * Reads an anchor (parsed JSON from anywhere) and checks its signature
 * with `key`; its chains are then what `verifyAuditChain` takes as
 * `anchored`.
 *
 * @example
 * const check = checkAuditAnchor({ anchor: JSON.parse(readFileSync('anchor.json', 'utf8')), key });
 * if (check.ok) verifyAuditChain({ rows, origin, purgeTool, key, anchored: check.chains });
 */
export function checkAuditAnchor({ anchor, key }: { anchor: unknown; key: string }): AuditAnchorCheck {
  if (typeof anchor !== 'object' || anchor === null) return { ok: false, reason: 'not an audit anchor' };
  const { format, at, rows, chains, signature } = anchor as Partial<Record<keyof AuditAnchor, unknown>>;
  if (format !== auditAnchorFormat)
    return { ok: false, reason: `not an audit anchor (format is not ${auditAnchorFormat})` };
  if (typeof at !== 'number' || typeof rows !== 'number' || !Array.isArray(chains) || typeof signature !== 'string') {
    return { ok: false, reason: 'audit anchor is incomplete (at, rows, chains, signature)' };
  }
  if (!chains.every(isChainEnd)) return { ok: false, reason: 'audit anchor has a malformed chain' };
  const expected = Buffer.from(anchorSignature({ at, rows, chains }, key), 'hex');
  const given = Buffer.from(signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'audit anchor is not signed with the configured ARBITER_AUDIT_KEY' };
  }
  const checked: AuditAnchor = { format, at, rows, chains, signature };
  return { ok: true, anchor: checked, chains: chains.map((chain) => ({ ...chain, anchoredAt: at })) };
}

function anchorSignature(
  { at, rows, chains }: { at: number; rows: number; chains: readonly AuditChainEnd[] },
  key: string,
): string {
  const signed = chains.map(({ tenant, writer, seq, auditId, hash }) => ({ tenant, writer, seq, auditId, hash }));
  return createHmac('sha256', key)
    .update(canonicalJson([auditAnchorFormat, { at, rows, chains: signed }]))
    .digest('hex');
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
