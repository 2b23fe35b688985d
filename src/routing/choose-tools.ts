import type { ToolSpec } from '../core/tool-spec.js';
import { type QueryPart, type ToolScore, ToolSearchIndex } from './tool-search-index.js';

/** What a lexical choice decided: the tools to send (in mounted order), why, and the ranking behind it. */
export interface ToolChoice {
  /** The tools to send, in the order of the mounted set. */
  readonly tools: readonly string[];
  readonly reason: 'all_fit' | 'lexical' | 'no_match';
  /** The kept tools among them (in use, always sent), in mounted order. */
  readonly kept: readonly string[];
  /** Every tool sharing a term with the query, best first. */
  readonly ranked: readonly ToolScore[];
  /** Every tool of the specs, in their order. */
  readonly all: readonly string[];
}

/** Indexes by the first spec of their set, so a set mounted again (groups make a new array per step) is found. */
const indexes = new WeakMap<ToolSpec, { specs: readonly ToolSpec[]; index: ToolSearchIndex }[]>();
const indexesPerFirstSpec = 8;

/**
 * The search index of a set of specs, built once per set: the same spec
 * objects in the same order find the same index, whichever array holds them.
 *
 * @example
 * const ranked = searchIndexFor(registry.specs).search([{ text: 'refund my order', weight: 1 }]);
 */
export function searchIndexFor(specs: readonly ToolSpec[]): ToolSearchIndex {
  const first = specs[0];
  if (first === undefined) return new ToolSearchIndex(specs);
  const known = indexes.get(first) ?? [];
  const found = known.find(
    (entry) =>
      entry.specs === specs ||
      (entry.specs.length === specs.length && entry.specs.every((spec, index) => spec === specs[index])),
  );
  if (found !== undefined) return found.index;
  const index = new ToolSearchIndex(specs);
  known.unshift({ specs: [...specs], index });
  known.length = Math.min(known.length, indexesPerFirstSpec);
  indexes.set(first, known);
  return index;
}

/**
 * The lexical choice: the kept tools, plus the `topK` best-scoring others.
 * The result keeps the order of `specs`, never the order of the scores, so
 * the same tools always make the same prompt prefix. With no more tools
 * than `topK` (kept ones aside) everything is sent (`all_fit`); when nothing
 * matches and no tool is in use, `onNoMatch` decides (`all` or only the
 * `kept`); when nothing matches at a later step of a turn, with tools in
 * use, the kept tools go.
 *
 * @example
 * chooseTools({ specs: registry.specs, query: [{ text: 'Where is my parcel?', weight: 1 }], topK: 6 }).tools;
 */
export function chooseTools({
  specs,
  query,
  topK,
  kept = [],
  inUse = false,
  onNoMatch = 'all',
}: {
  specs: readonly ToolSpec[];
  query: readonly QueryPart[];
  topK: number;
  /** Names always sent when they are among `specs`. */
  kept?: readonly string[];
  /** True when the conversation is in the middle of using tools: a request matching nothing then keeps to them. */
  inUse?: boolean;
  onNoMatch?: 'all' | 'kept';
}): ToolChoice {
  const index = searchIndexFor(specs);
  const names = index.names;
  const keptSet = new Set(kept.filter((name) => names.includes(name)));
  const ranked = index.search(query);
  if (names.length - keptSet.size <= topK) {
    return { tools: names, reason: 'all_fit', kept: inOrder(names, keptSet), ranked, all: names };
  }
  const chosen = new Set(keptSet);
  let added = 0;
  for (const { name } of ranked) {
    if (added >= topK) break;
    if (chosen.has(name)) continue;
    chosen.add(name);
    added += 1;
  }
  if (ranked.length === 0 && !inUse) {
    return {
      tools: onNoMatch === 'all' ? names : inOrder(names, keptSet),
      reason: 'no_match',
      kept: inOrder(names, keptSet),
      ranked,
      all: names,
    };
  }
  return { tools: inOrder(names, chosen), reason: 'lexical', kept: inOrder(names, keptSet), ranked, all: names };
}

/**
 * The chosen names in the order of `names`.
 *
 * @example
 * inOrder(['a', 'b', 'c'], new Set(['c', 'a'])); // ['a', 'c']
 */
export function inOrder(names: readonly string[], chosen: ReadonlySet<string>): string[] {
  return names.filter((name) => chosen.has(name));
}
