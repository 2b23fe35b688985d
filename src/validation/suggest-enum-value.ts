import { editDistance } from '../util/edit-distance.js';

/** Strings longer than this are not compared: a hostile value or enum must not cost quadratic time. */
const longestCompared = 64;

/**
 * Above this many allowed strings no edit distance is worked out (each is up
 * to 64 × 64 steps): a third party's enum of 200,000 values would cost every
 * refused call a second of CPU. The same words and a unique start are still
 * looked for, in one pass.
 */
const mostSpelledOut = 1_000;

/**
 * The allowed value a string sent for an enum most likely meant, so the
 * message can say "did you mean": the same words written another way
 * (`Damaged`, `wrong-item`), the sent text one or two letters off a value
 * (`damage`, `recieved`), or the start of exactly one value (`not_rec`).
 * Undefined unless exactly one allowed string is that close: a guess that
 * could point at the wrong value is not offered, and `broken` for `damaged`
 * (a synonym, not a spelling) gets none. Spelling is compared only in an
 * enum of at most 1,000 strings.
 *
 * @example
 * suggestEnumValue({ sent: 'damage', allowed: ['damaged', 'wrong_item', 'other'] }); // 'damaged'
 * suggestEnumValue({ sent: 'broken', allowed: ['damaged', 'wrong_item', 'other'] }); // undefined
 */
export function suggestEnumValue({
  sent,
  allowed,
}: {
  /** The string the model sent. */
  sent: string;
  /** The enum's values (non-strings are ignored). */
  allowed: readonly unknown[];
}): string | undefined {
  if (sent.length === 0 || sent.length > longestCompared) return undefined;
  const wanted = normalise(sent);
  const candidates = allowed
    .filter(
      (value): value is string => typeof value === 'string' && value.length > 0 && value.length <= longestCompared,
    )
    .map((value) => ({ value, words: normalise(value) }));
  const onlyOne = (found: readonly { value: string }[]): string | undefined =>
    found.length === 1 ? found[0]?.value : undefined;
  // The same words written another way: the answer, unless two allowed values are both that.
  const same = candidates.filter(({ words }) => words === wanted);
  if (same.length > 0) return onlyOne(same);
  let nearest: (typeof candidates)[number] | undefined;
  let nearestDistance = Number.POSITIVE_INFINITY;
  let tied = false;
  for (const candidate of candidates.length > mostSpelledOut ? [] : candidates) {
    const distance = editDistance(wanted, candidate.words);
    if (distance === nearestDistance) tied = true;
    else if (distance < nearestDistance) {
      nearest = candidate;
      nearestDistance = distance;
      tied = false;
    }
  }
  if (nearest !== undefined && !tied) {
    const longer = Math.max(wanted.length, nearest.words.length);
    if (nearestDistance <= Math.min(2, Math.floor(longer / 3))) return nearest.value;
  }
  if (wanted.length < 4) return undefined;
  return onlyOne(candidates.filter(({ words }) => words.startsWith(wanted)));
}

/** Lower case, with spaces, hyphens and dots read as underscores: `Wrong-Item` and `wrong_item` are the same words. */
function normalise(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[\s.-]+/g, '_');
}
