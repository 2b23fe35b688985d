/** A column: its heading and which side its cells line up on. */
export interface TableColumn {
  readonly heading: string;
  readonly align?: 'left' | 'right';
}

/**
 * A Markdown table, padded so it also reads well in a terminal: what a
 * command prints can be pasted into the docs as is.
 *
 * @example
 * renderTable({ columns: [{ heading: 'metric' }, { heading: 'value', align: 'right' }], rows: [['runs', '3']] });
 * // ['| metric | value |', '| :----- | ----: |', '| runs   |     3 |']
 */
export function renderTable({
  columns,
  rows,
}: {
  columns: readonly TableColumn[];
  rows: readonly (readonly string[])[];
}): string[] {
  const widths = columns.map((column, index) =>
    Math.max(column.heading.length, 3, ...rows.map((row) => width(row[index] ?? ''))),
  );
  const line = (cells: readonly string[]) =>
    `| ${columns
      .map((column, index) => {
        const cell = (cells[index] ?? '').replaceAll('|', '\\|');
        const padding = ' '.repeat(Math.max(0, (widths[index] ?? 0) - width(cell)));
        return column.align === 'right' ? padding + cell : cell + padding;
      })
      .join(' | ')} |`;
  const rule = `| ${columns
    .map((column, index) => {
      const dashes = '-'.repeat(Math.max(1, (widths[index] ?? 3) - 1));
      return column.align === 'right' ? `${dashes}:` : `:${dashes}`;
    })
    .join(' | ')} |`;
  return [line(columns.map((column) => column.heading)), rule, ...rows.map(line)];
}

/** Display width: CJK characters take two columns in a terminal. */
function width(text: string): number {
  let columns = 0;
  for (const character of text)
    columns += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\uff00-\uff60]/.test(character) ? 2 : 1;
  return columns;
}

/**
 * A rate as a percentage with one decimal, or `n/a`.
 *
 * @example
 * formatPercent(0.8333); // '83.3%'
 */
export function formatPercent(rate: number | undefined): string {
  return rate === undefined ? 'n/a' : `${(rate * 100).toFixed(1)}%`;
}
