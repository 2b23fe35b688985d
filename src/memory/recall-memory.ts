import type { FactOwner, MemoryStore, RecalledFact } from '../core/memory-store.js';
import { cosineSimilarity, type Embedder } from './embedder.js';

/** How many of an owner's newest embedded facts a vector search compares. */
export const VECTOR_CANDIDATES = 500;
/** Reciprocal-rank-fusion constant: how much rank 1 outweighs rank 10. */
const fusionConstant = 60;

/**
 * Recalls one owner's facts: exact key first, then the lexical search of
 * the store, and, with an `embedder`, a vector search over the owner's
 * newest embedded facts, fused with the lexical ranking by reciprocal rank
 * (a fact found both ways ranks above one found one way). Only current,
 * unexpired facts of this tenant and user are ever candidates: the owner
 * is passed to every store call, and the vector search reads only what the
 * store hands back for that owner.
 *
 * @example
 * const recalled = await recallMemory({ memory, owner: { tenantId: 'shop', userId: 'C1001' }, query: 'where do I live', embedder });
 */
export async function recallMemory({
  memory,
  owner,
  key,
  query,
  limit = 5,
  embedder,
  signal,
}: {
  memory: MemoryStore;
  owner: FactOwner;
  key?: string;
  query?: string;
  limit?: number;
  embedder?: Embedder;
  signal?: AbortSignal;
}): Promise<RecalledFact[]> {
  const { tenantId, userId } = owner;
  const lexical = await memory.recall({
    tenantId,
    userId,
    limit: embedder === undefined ? limit : limit * 2,
    ...(key === undefined ? {} : { key }),
    ...(query === undefined ? {} : { query }),
  });
  if (embedder === undefined || query === undefined || query.trim() === '') return lexical.slice(0, limit);
  const [queryVector] = await embedder.embed([query], signal === undefined ? {} : { signal });
  const candidates = await memory.embedded({ tenantId, userId, limit: VECTOR_CANDIDATES });
  const byVector = candidates
    .filter(({ fact }) => fact.tenantId === tenantId && fact.userId === userId)
    .map(({ fact, embedding }) => ({ fact, similarity: cosineSimilarity(queryVector ?? [], embedding) }))
    .filter((entry) => entry.similarity > 0)
    .sort((left, right) => right.similarity - left.similarity)
    .slice(0, limit * 2);
  const fused = new Map<string, RecalledFact>();
  const add = (entry: Omit<RecalledFact, 'score'>, rank: number, boost: number) => {
    const previous = fused.get(entry.fact.factId);
    const score = (previous?.score ?? 0) + boost + 1 / (fusionConstant + rank);
    fused.set(entry.fact.factId, { fact: entry.fact, matchedBy: previous?.matchedBy ?? entry.matchedBy, score });
  };
  for (const [rank, entry] of lexical.entries()) add(entry, rank + 1, entry.matchedBy === 'key' ? 1 : 0);
  for (const [rank, entry] of byVector.entries()) add({ fact: entry.fact, matchedBy: 'vector' }, rank + 1, 0);
  return [...fused.values()].sort((left, right) => right.score - left.score).slice(0, limit);
}
