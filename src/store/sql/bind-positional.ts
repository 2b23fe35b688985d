/** For each text: the `$n` of each placeholder in order, and the text with `?` for each. */
const bindings = new Map<string, { text: string; order: number[] }>();

/**
 * A statement written with PostgreSQL's `$1`, `$2`, … as SQLite binds it:
 * each `$n` becomes `?`, and the values are picked in the order the
 * placeholders appear (a `$n` used twice is bound twice). `$` inside a
 * quoted string is left alone.
 *
 * @example
 * bindPositional('SELECT * FROM t WHERE a = $2 OR b = $1 OR c = $2', ['x', 'y']);
 * // { text: 'SELECT * FROM t WHERE a = ? OR b = ? OR c = ?', values: ['y', 'x', 'y'] }
 */
export function bindPositional(sql: string, values: readonly unknown[]): { text: string; values: unknown[] } {
  const binding = positionalBinding(sql);
  const missing = binding.order.find((position) => position < 1 || position > values.length);
  if (missing !== undefined) {
    throw new RangeError(
      `the statement binds $${missing}, and ${values.length} values were given: ${sql.slice(0, 80)}`,
    );
  }
  return { text: binding.text, values: binding.order.map((position) => values[position - 1]) };
}

/**
 * The text SQLite prepares for a statement written with `$n`, and the `$n`
 * each of its `?` takes, in order (computed once per text).
 *
 * @example
 * positionalBinding('SELECT $2, $1'); // { text: 'SELECT ?, ?', order: [2, 1] }
 */
export function positionalBinding(sql: string): { readonly text: string; readonly order: readonly number[] } {
  let binding = bindings.get(sql);
  if (binding === undefined) {
    const order: number[] = [];
    let text = '';
    let quoted = false;
    for (let index = 0; index < sql.length; index += 1) {
      const character = sql[index] as string;
      if (character === "'") quoted = !quoted;
      const digits = quoted || character !== '$' ? undefined : /^\d+/.exec(sql.slice(index + 1))?.[0];
      if (digits === undefined) {
        text += character;
        continue;
      }
      order.push(Number(digits));
      text += '?';
      index += digits.length;
    }
    binding = { text, order };
    bindings.set(sql, binding);
  }
  return binding;
}
