import type { MemoryFact } from '../core/memory-store.js';
import { redactedMarker } from '../util/redact.js';

/** One fact as a person's export shows it: everything stored, a sensitive value redacted. */
export interface FactExport {
  readonly factId: string;
  readonly tenantId: string;
  readonly userId: string;
  readonly key: string;
  readonly value: string;
  readonly source: MemoryFact['source'];
  readonly trusted: boolean;
  readonly sensitive: boolean;
  readonly createdAt: string;
  readonly expiresAt: string | undefined;
  readonly supersedes: string | undefined;
  readonly supersededBy: string | undefined;
  readonly retractedAt: string | undefined;
  readonly status: 'current' | 'superseded' | 'retracted' | 'expired';
}

/**
 * Facts as exported to the person they are about (CLI `memory export`, the
 * HTTP API): dates in ISO 8601, a status per version, and the value of
 * every sensitive fact replaced by `[redacted]` (the same marker as
 * everywhere a sensitive value leaves the live conversation).
 *
 * @example
 * const lines = exportFacts({ facts: await memory.list({ ...owner, history: true }), now: Date.now() });
 */
export function exportFacts({
  facts,
  now = Date.now(),
  redactSensitive = true,
}: {
  facts: readonly MemoryFact[];
  now?: number;
  /** Default true; false only for a view the person asked for on their own, authenticated, e.g. `show`. */
  redactSensitive?: boolean;
}): FactExport[] {
  const iso = (at: number | undefined) => (at === undefined ? undefined : new Date(at).toISOString());
  return facts.map((fact) => ({
    factId: fact.factId,
    tenantId: fact.tenantId,
    userId: fact.userId,
    key: fact.key,
    value: fact.sensitive && redactSensitive ? redactedMarker : fact.value,
    source: fact.source,
    trusted: fact.trusted,
    sensitive: fact.sensitive,
    createdAt: new Date(fact.createdAt).toISOString(),
    expiresAt: iso(fact.expiresAt),
    supersedes: fact.supersedes,
    supersededBy: fact.supersededBy,
    retractedAt: iso(fact.retractedAt),
    status:
      fact.retractedAt !== undefined
        ? 'retracted'
        : fact.supersededBy !== undefined
          ? 'superseded'
          : fact.expiresAt !== undefined && fact.expiresAt <= now
            ? 'expired'
            : 'current',
  }));
}
