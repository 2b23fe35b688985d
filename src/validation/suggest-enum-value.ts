import { editDistance } from '../util/edit-distance.js';

/** Strings longer than this are not compared: a hostile value or enum must not cost quadratic time. */
const longestCompared = 64;

/**
 * The allowed value a string sent for an enum most likely meant, so the
 * message can say "did you mean": the same words written another way
 * (`Damaged`, `wrong-item`), the sent text one or two letters off a value
 * (`damage`, `recieved`), or the start of exactly one value (`not_rec`).
 * Undefined unless exactly one allowed string is that close: a guess that
 * could point at the wrong value is not offered, and `broken` for `damaged`
 * (a synonym, not a spelling) gets none.
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
  const candidates = allowed.filter(
    (value): value is string => typeof value === 'string' && value.length > 0 && value.length <= longestCompared,
  );
  const wanted = normalise(sent);
  const best = (matches: (candidate: string) => boolean): string | undefined => {
    const found = candidates.filter(matches);
    return found.length === 1 ? found[0] : undefined;
  };
  const sameWords = best((candidate) => normalise(candidate) === wanted);
  if (sameWords !== undefined) return sameWords;
  if (candidates.some((candidate) => normalise(candidate) === wanted)) return undefined;
  let closest: string | undefined;
  let closestDistance = Number.POSITIVE_INFINITY;
  let tied = false;
  for (const candidate of candidates) {
    const distance = editDistance(wanted, normalise(candidate));
    if (distance < closestDistance) {
      closest = candidate;
      closestDistance = distance;
      tied = false;
    } else if (distance === closestDistance) tied = true;
  }
  const longer = Math.max(wanted.length, closest === undefined ? 0 : normalise(closest).length);
  if (closest !== undefined && !tied && closestDistance <= Math.min(2, Math.floor(longer / 3))) return closest;
  if (wanted.length < 4) return undefined;
  return best((candidate) => normalise(candidate).startsWith(wanted));
}

/** Lower case, with spaces, hyphens and dots read as underscores: `Wrong-Item` and `wrong_item` are the same words. */
function normalise(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[\s.-]+/g, '_');
}
