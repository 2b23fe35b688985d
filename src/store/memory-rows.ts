import { randomUUID } from 'node:crypto';
import type { FactSourceKind, MemoryFact, SaveFactRequest } from '../core/memory-store.js';
import { MemoryFactError } from '../errors/memory-fact-error.js';

/** The longest key a fact may have, in characters. */
export const MAX_FACT_KEY_LENGTH = 100;
/** The longest value a fact may have, in characters: a fact, not a conversation. */
export const MAX_FACT_VALUE_LENGTH = 1_000;
/** Default number of facts a recall returns. */
export const DEFAULT_RECALL_LIMIT = 5;
/** The most facts one recall returns. */
export const MAX_RECALL_LIMIT = 50;

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

/** The columns of `memory_facts` that make a {@link MemoryFactRow}, from the table as `f`, for both backends' SELECTs. */
export const memoryFactColumns = `f.fact_id, f.tenant_id, f.user_id, f.key, f.value, f.source_kind, f.source_run_id, f.source_message_id,
  f.source_call_id, f.source_tool, f.trusted, f.sensitive, f.created_at, f.expires_at, f.supersedes, f.superseded_by,
  f.retracted_at`;

/**
 * The SQL condition that a fact (the table as `f`) is current: neither
 * superseded nor retracted nor expired at `now`, the backend's placeholder
 * for the time (`?` in SQLite, `$4` in PostgreSQL).
 *
 * @example
 * `SELECT ${memoryFactColumns} FROM memory_facts f WHERE f.tenant_id = ? AND ${currentFactCondition('?')}`;
 */
export function currentFactCondition(now: string): string {
  return `f.superseded_by IS NULL AND f.retracted_at IS NULL AND (f.expires_at IS NULL OR f.expires_at > ${now})`;
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
 * Checks a save request and builds the new fact's row values (a fresh id,
 * created now), the same for both backends. Throws `MemoryFactError` for
 * an empty owner or key, a key or value too long, or an expiry not in the
 * future.
 *
 * @example
 * const fact = newFact(request, Date.now());
 */
export function newFact(request: SaveFactRequest, now: number): MemoryFact {
  const { tenantId, userId, key, value, expiresAt } = request;
  for (const [field, text] of Object.entries({ tenantId, userId, key, value })) {
    if (text.includes('\u0000'))
      throw new MemoryFactError({ field, message: `a fact's ${field} cannot hold a NUL character` });
  }
  if (tenantId === '') throw new MemoryFactError({ field: 'tenantId', message: 'a fact needs a tenant' });
  if (userId === '') throw new MemoryFactError({ field: 'userId', message: 'a fact needs a user' });
  if (key.trim() === '' || key.length > MAX_FACT_KEY_LENGTH) {
    throw new MemoryFactError({
      field: 'key',
      message: `a fact key is 1 to ${MAX_FACT_KEY_LENGTH} characters, not blank; got ${key.length}`,
    });
  }
  if (value.trim() === '' || value.length > MAX_FACT_VALUE_LENGTH) {
    throw new MemoryFactError({
      field: 'value',
      message: `a fact value is 1 to ${MAX_FACT_VALUE_LENGTH} characters, not blank; got ${value.length}`,
    });
  }
  if (expiresAt !== undefined && !(expiresAt > now)) {
    throw new MemoryFactError({ field: 'expiresAt', message: 'a fact must expire in the future' });
  }
  return {
    factId: `fact_${randomUUID()}`,
    tenantId,
    userId,
    key,
    value,
    source: request.source,
    trusted: request.trusted,
    sensitive: request.sensitive ?? false,
    createdAt: now,
    expiresAt,
    supersedes: undefined,
    supersededBy: undefined,
    retractedAt: undefined,
  };
}

/**
 * The number of facts a recall returns: `limit` clamped to 1..{@link MAX_RECALL_LIMIT}.
 *
 * @example
 * recallLimit(undefined); // 5
 */
export function recallLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_RECALL_LIMIT;
  return Math.min(MAX_RECALL_LIMIT, Math.max(1, Math.floor(limit)));
}

/**
 * Merges the exact-key hits (first) with the text hits (after, in their
 * order), each fact once, at most `limit`; scores fall with rank so a
 * hybrid ranking can fuse them.
 *
 * @example
 * const ranked = mergeRecall({ byKey, byText, limit: 5 });
 */
export function mergeRecall({
  byKey,
  byText,
  limit,
}: {
  byKey: readonly MemoryFact[];
  byText: readonly MemoryFact[];
  limit: number;
}): { fact: MemoryFact; score: number; matchedBy: 'key' | 'text' }[] {
  const seen = new Set<string>();
  const ranked: { fact: MemoryFact; score: number; matchedBy: 'key' | 'text' }[] = [];
  for (const [matchedBy, facts] of [
    ['key', byKey],
    ['text', byText],
  ] as const) {
    for (const fact of facts) {
      if (ranked.length >= limit) return ranked;
      if (seen.has(fact.factId)) continue;
      seen.add(fact.factId);
      ranked.push({ fact, score: 1 / (1 + ranked.length), matchedBy });
    }
  }
  return ranked;
}

/**
 * A save's outcome once the key's current version (if any) is known: the
 * new fact supersedes it, and it is returned marked as superseded by the
 * new one.
 *
 * @example
 * const { fact, superseded } = savedFact({ created: newFact(request, now), previous });
 */
export function savedFact({ created, previous }: { created: MemoryFact; previous: MemoryFact | undefined }): {
  fact: MemoryFact;
  superseded: MemoryFact | undefined;
} {
  const fact: MemoryFact = { ...created, supersedes: previous?.factId };
  return { fact, superseded: previous === undefined ? undefined : { ...previous, supersededBy: fact.factId } };
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
 * What retracting `fact` (as read, undefined when the owner has no such
 * fact) does: nothing for a missing or already retracted fact (undefined);
 * otherwise it is retracted and, when it was the key's current version,
 * the version it superseded (`restores`) becomes current again.
 *
 * @example
 * const retraction = factRetraction(fact);
 * if (retraction === undefined) return false;
 */
export function factRetraction(fact: MemoryFact | undefined): { restores: string | undefined } | undefined {
  if (fact === undefined || fact.retractedAt !== undefined) return undefined;
  return { restores: fact.supersededBy === undefined ? fact.supersedes : undefined };
}

/**
 * What `forget` deletes: with `factId`, every version of that fact's key
 * (`found` is the fact as read), or nothing when the owner has no such fact
 * or it is of another key than `key`; otherwise every version of `key`, or
 * with neither every fact of the owner (`key` undefined). Undefined:
 * nothing to delete.
 *
 * @example
 * const scope = forgottenKey({ key, factId, found });
 * if (scope === undefined) return 0;
 */
export function forgottenKey({
  key,
  factId,
  found,
}: {
  key: string | undefined;
  factId: string | undefined;
  found: MemoryFact | undefined;
}): { key: string | undefined } | undefined {
  if (factId === undefined) return { key };
  if (found === undefined || (key !== undefined && key !== found.key)) return undefined;
  return { key: found.key };
}

/**
 * The number of embedded facts `embedded` reads: `limit` as a whole number, never negative.
 *
 * @example
 * embeddedLimit(2.5); // 2
 */
export function embeddedLimit(limit: number): number {
  return Math.max(0, Math.floor(limit));
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
