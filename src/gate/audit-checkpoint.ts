import { createHmac } from 'node:crypto';
import { canonicalJson } from '../util/canonical-json.js';

/** Where a chain of the second format starts after a purge: the newest row the purge deleted from it. */
export interface AuditCheckpointChain {
  readonly tenant: string;
  readonly writer: string;
  readonly seq: number;
  readonly hash: string;
}

/** A purge's record of where the remaining chains start, as stored in the purge row's arguments. */
export interface AuditCheckpoint {
  /** Chains of the first format: tenant → the hash of the newest row the purge deleted from its chain. */
  readonly chain_starts: Readonly<Record<string, string>>;
  /** Chains of the second format the purge cut (absent in checkpoints written before it). */
  readonly chains?: readonly AuditCheckpointChain[] | undefined;
  /**
   * The origin seal of the store the purge ran on (`auditOriginSeal`: its id
   * and when its chain began), so an origin changed after a purge cut the
   * chains that linked to it still shows; absent in checkpoints written before.
   */
  readonly origin?: string | undefined;
  /**
   * HMAC-SHA256 (hex) with `ARBITER_AUDIT_KEY` of the canonical JSON of
   * `chain_starts` (a checkpoint without `chains` nor `origin`), of
   * `['arbiter-audit-checkpoint-v2', { chain_starts, chains }]` (without
   * `origin`), or of `['arbiter-audit-checkpoint-v3', { chain_starts,
   * chains, origin }]`; null when no key was configured (then only the
   * purge row's own hash protects it).
   */
  readonly signature: string | null;
}

/**
 * The checkpoint a purge records: where each chain it cut now starts,
 * signed with `key` when one is configured.
 *
 * @example
 * const checkpoint = auditCheckpoint({ chainStarts: {}, chains: [{ tenant: 'acme', writer, seq: 41, hash: 'ab12…' }], key });
 */
export function auditCheckpoint({
  chainStarts,
  chains = [],
  origin,
  key,
}: {
  chainStarts: Readonly<Record<string, string>>;
  chains?: readonly AuditCheckpointChain[];
  /** The store's origin seal (`auditOriginSeal`); undefined for a store without one. */
  origin?: string | undefined;
  key?: string | undefined;
}): AuditCheckpoint {
  const checkpoint = {
    chain_starts: chainStarts,
    ...(chains.length === 0 && origin === undefined ? {} : { chains }),
    ...(origin === undefined ? {} : { origin }),
  };
  return { ...checkpoint, signature: key === undefined || key === '' ? null : checkpointSignature(checkpoint, key) };
}

/** The newest row a purge deletes from one chain, where that chain starts again. */
export interface AuditChainCut {
  /** The chain's tenant; '' for calls without one. */
  readonly tenant: string;
  /** The chain's writer; null for a chain of the first format (one per tenant). */
  readonly writer: string | null;
  /** The row's place in its writer's chain; null for the first format. */
  readonly seq: number | null;
  readonly hash: string;
}

/**
 * The checkpoint of a purge that cut the chains at `cut`: a chain of the
 * first format is recorded by its tenant (`chain_starts`), one of the
 * second by tenant, writer and place (`chains`); signed with `key` when
 * one is configured.
 *
 * @example
 * const checkpoint = auditCheckpointOfCut({ cut: [{ tenant: 'acme', writer, seq: 41, hash: 'ab12…' }], key });
 */
export function auditCheckpointOfCut({
  cut,
  origin,
  key,
}: {
  cut: readonly AuditChainCut[];
  /** The store's origin seal (`auditOriginSeal`); undefined for a store without one. */
  origin?: string | undefined;
  key?: string | undefined;
}): AuditCheckpoint {
  const chainStarts: Record<string, string> = {};
  const chains: AuditCheckpointChain[] = [];
  for (const { tenant, writer, seq, hash } of cut) {
    if (writer === null || seq === null) chainStarts[tenant] = hash;
    else chains.push({ tenant, writer, seq, hash });
  }
  return auditCheckpoint({ chainStarts, chains, origin, key });
}

/**
 * Whether a checkpoint carries the signature of `key`.
 *
 * @example
 * if (!isSignedCheckpoint(checkpoint, key)) report('purge checkpoint not signed');
 */
export function isSignedCheckpoint(checkpoint: AuditCheckpoint, key: string): boolean {
  return checkpoint.signature !== null && checkpoint.signature === checkpointSignature(checkpoint, key);
}

function checkpointSignature(checkpoint: Omit<AuditCheckpoint, 'signature'>, key: string): string {
  const { chain_starts, chains, origin } = checkpoint;
  const signed =
    origin !== undefined
      ? canonicalJson(['arbiter-audit-checkpoint-v3', { chain_starts, chains: chains ?? [], origin }])
      : chains === undefined
        ? canonicalJson(chain_starts)
        : canonicalJson(['arbiter-audit-checkpoint-v2', { chain_starts, chains }]);
  return createHmac('sha256', key).update(signed).digest('hex');
}

/**
 * The checkpoint in a purge row's arguments (stored JSON), or undefined.
 *
 * @example
 * const checkpoint = readAuditCheckpoint(row.record.arguments);
 */
export function readAuditCheckpoint(text: string | number | null | undefined): AuditCheckpoint | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const parsed = JSON.parse(text) as { checkpoint?: AuditCheckpoint };
    const checkpoint = parsed.checkpoint;
    if (typeof checkpoint !== 'object' || checkpoint === null) return undefined;
    if (typeof checkpoint.chain_starts !== 'object' || checkpoint.chain_starts === null) return undefined;
    if (checkpoint.chains !== undefined && !Array.isArray(checkpoint.chains)) return undefined;
    if (checkpoint.origin !== undefined && typeof checkpoint.origin !== 'string') return undefined;
    return checkpoint;
  } catch {
    return undefined;
  }
}
