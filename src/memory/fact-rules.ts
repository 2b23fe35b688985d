/**
 * The rules of long-term memory, the same for every store: what a fact may
 * hold (owner, key and value lengths, an expiry in the future), that a save
 * supersedes the key's current version, what a retraction restores, what a
 * forget deletes, and how many facts a recall returns and in what order. A
 * store reads the facts, asks these rules, and writes what they say.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { MemoryFact, SaveFactRequest } from '../core/memory-store.js';
import { MemoryFactError } from '../errors/memory-fact-error.js';

/** The longest key a fact may have, in characters. */
export const MAX_FACT_KEY_LENGTH = 100;
/** The longest value a fact may have, in characters: a fact, not a conversation. */
export const MAX_FACT_VALUE_LENGTH = 1_000;
/** Default number of facts a recall returns. */
export const DEFAULT_RECALL_LIMIT = 5;
/** The most facts one recall returns. */
export const MAX_RECALL_LIMIT = 50;

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
