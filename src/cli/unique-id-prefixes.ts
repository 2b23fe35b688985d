/**
 * For each id, its shortest beginning (at least `minimum` characters) that
 * no other id of `ids` shares: what a table shows so that two rows of ids
 * made in the same minute (time-ordered ids share their first characters)
 * read differently, and what a command accepts back as the id
 * (`resolveIdPrefix`).
 *
 * @example
 * const shown = uniqueIdPrefixes({ ids: ['01a24c56-7b2e-…', '01a24c56-9d01-…'] });
 * shown.get('01a24c56-7b2e-…'); // '01a24c56-7'
 */
export function uniqueIdPrefixes({
  ids,
  minimum = 8,
}: {
  ids: Iterable<string>;
  minimum?: number;
}): ReadonlyMap<string, string> {
  const sorted = [...new Set(ids)].sort();
  const shared = (left: string | undefined, right: string | undefined): number => {
    if (left === undefined || right === undefined) return 0;
    let length = 0;
    while (length < left.length && length < right.length && left[length] === right[length]) length += 1;
    return length;
  };
  const shown = new Map<string, string>();
  sorted.forEach((id, index) => {
    const length = Math.max(minimum, shared(id, sorted[index - 1]) + 1, shared(id, sorted[index + 1]) + 1);
    shown.set(id, id.slice(0, length));
  });
  return shown;
}
