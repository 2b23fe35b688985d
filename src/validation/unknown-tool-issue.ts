import type { Locale } from '../core/locale.js';
import { editDistance } from '../util/edit-distance.js';
import { issueLine } from './issue-parts.js';
import { displayName } from './json-path.js';
import type { ValidationIssue } from './validation-issue.js';
import { validationTexts } from './validation-texts.js';

/**
 * The issue for a call to a tool that is not mounted: it lists the tools
 * that are, and suggests the closest name when one is near, or the few
 * tools whose names hold every word of the name sent (`refund` →
 * `apply_refund` or `query_refund`).
 *
 * @example
 * unknownToolIssue({ name: 'refund_order', available: ['query_order', 'apply_refund'] }).message;
 * // '`refund_order`: there is no tool with this name. Available tools: query_order, apply_refund.'
 */
export function unknownToolIssue({
  name,
  available,
  locale = 'en',
}: {
  name: string;
  available: readonly string[];
  locale?: Locale;
}): ValidationIssue {
  const shown = displayName(name);
  const message = issueLine(validationTexts(locale), {
    field: shown,
    toolName: shown,
    problem: { kind: 'unknown_tool', available, suggestions: closestNames(name, available) },
    wording: undefined,
    received: { kind: 'omit' },
  });
  return { path: '$', code: 'unknown_tool', layer: 'call', message };
}

/** At most this many tools are suggested for a name whose words several tool names hold. */
const maxSuggestions = 3;

const wordsOf = (name: string) => name.toLowerCase().split(/[_\-.]/);

/**
 * The available names a mistaken name most likely meant: the same words in
 * another order, else the nearest by edit distance when it is near, else the
 * (at most three) names that hold every word of it.
 */
function closestNames(name: string, available: readonly string[]): readonly string[] {
  if (name.length > 64) return [];
  const lowered = name.toLowerCase();
  const words = wordsOf(name);
  const sortedWords = [...words].sort().join('_');
  // Each name's words, split once: for the same words in another order, then for the names that hold them.
  const candidates = available.map((candidate) => ({ candidate, words: wordsOf(candidate) }));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const { candidate, words: candidateWords } of candidates) {
    if ([...candidateWords].sort().join('_') === sortedWords) return [candidate];
    const distance = editDistance(lowered, candidate.toLowerCase());
    if (distance < bestDistance) {
      bestDistance = distance;
      best = candidate;
    }
  }
  const tolerance = Math.max(2, Math.floor(lowered.length / 4));
  if (best !== undefined && bestDistance <= tolerance) return [best];
  // A word of two letters (`id`, `to`) is in too many names to point at any.
  if (words.some((word) => word.length < 3)) return [];
  const holding = candidates
    .filter(({ words: candidateWords }) => words.every((word) => candidateWords.includes(word)))
    .map(({ candidate }) => candidate);
  return holding.length <= maxSuggestions ? holding : [];
}
