/** How many allowed values, field names or tool names a model-facing message lists before "and K more". */
export const maxListed = 20;

/**
 * The first `limit` items of a list a message names, and how many it leaves
 * out. A schema with a 200,000-value enum must not produce a 3 MB message.
 *
 * @example
 * listHead(['a', 'b', 'c'], 2); // { shown: ['a', 'b'], more: 1 }
 */
export function listHead<T>(
  items: readonly T[],
  limit = maxListed,
): { readonly shown: readonly T[]; readonly more: number } {
  return items.length <= limit
    ? { shown: items, more: 0 }
    : { shown: items.slice(0, limit), more: items.length - limit };
}
