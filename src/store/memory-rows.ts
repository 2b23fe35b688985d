import type { FactSourceKind, MemoryFact } from '../core/memory-store.js';

/** A row of `memory_facts` as both backends read it (PostgreSQL booleans arrive as booleans). */
export interface MemoryFactRow {
  fact_id: string;
  tenant_id: string;
  user_id: string;
  key: string;
  value: string;
  source_kind: FactSourceKind;
  source_run_id: string | null;
  source_message_id: string | null;
  source_call_id: string | null;
  source_tool: string | null;
  trusted: number | boolean;
  sensitive: number | boolean;
  created_at: number | string;
  expires_at: number | string | null;
  supersedes: string | null;
  superseded_by: string | null;
  retracted_at: number | string | null;
}

/**
 * A stored row as the fact it records.
 *
 * @example
 * const facts = rows.map(toMemoryFact);
 */
export function toMemoryFact(row: MemoryFactRow): MemoryFact {
  return {
    factId: row.fact_id,
    tenantId: row.tenant_id,
    userId: row.user_id,
    key: row.key,
    value: row.value,
    source: {
      kind: row.source_kind,
      ...(row.source_run_id === null ? {} : { runId: row.source_run_id }),
      ...(row.source_message_id === null ? {} : { messageId: row.source_message_id }),
      ...(row.source_call_id === null ? {} : { callId: row.source_call_id }),
      ...(row.source_tool === null ? {} : { tool: row.source_tool }),
    },
    trusted: row.trusted === true || row.trusted === 1,
    sensitive: row.sensitive === true || row.sensitive === 1,
    createdAt: Number(row.created_at),
    expiresAt: row.expires_at === null ? undefined : Number(row.expires_at),
    supersedes: row.supersedes ?? undefined,
    supersededBy: row.superseded_by ?? undefined,
    retractedAt: row.retracted_at === null ? undefined : Number(row.retracted_at),
  };
}

/**
 * A new fact's row, in the order both dialects insert `memory_facts`:
 * fact id, tenant, user, key, value, the four source columns, trusted,
 * sensitive (booleans: SQLite binds them as 1 and 0), created and expiry
 * times, the version it supersedes, and its embedding as JSON.
 *
 * @example
 * `INSERT INTO memory_facts (fact_id, tenant_id, user_id, key, value, source_kind, source_run_id, source_message_id,
 *    source_call_id, source_tool, trusted, sensitive, created_at, expires_at, supersedes, embedding) VALUES (…)`
 */
export function factRowValues(
  fact: MemoryFact,
  embedding: readonly number[] | undefined,
): (string | number | boolean | null)[] {
  return [
    fact.factId,
    fact.tenantId,
    fact.userId,
    fact.key,
    fact.value,
    fact.source.kind,
    fact.source.runId ?? null,
    fact.source.messageId ?? null,
    fact.source.callId ?? null,
    fact.source.tool ?? null,
    fact.trusted,
    fact.sensitive,
    fact.createdAt,
    fact.expiresAt ?? null,
    fact.supersedes ?? null,
    embedding === undefined ? null : JSON.stringify(embedding),
  ];
}

/**
 * A stored row with its embedding as the fact and the vector.
 *
 * @example
 * const candidates = rows.map(toEmbeddedFact);
 */
export function toEmbeddedFact(row: MemoryFactRow & { embedding: string }): { fact: MemoryFact; embedding: number[] } {
  return { fact: toMemoryFact(row), embedding: JSON.parse(row.embedding) as number[] };
}
