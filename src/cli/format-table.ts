import type { TableColumn } from '../observe/render-table.js';

export type { TableColumn };

/**
 * Lines of a plain-text table whose columns are as wide as their widest
 * cell, two spaces apart, so a long value (a session id chosen by a client)
 * moves the columns after it instead of running into them. The last column
 * is not padded.
 *
 * @example
 * formatTable({ columns: [{ heading: 'id' }, { heading: 'steps', align: 'right' }], rows: [['s1', '3']] });
 * // ['id  steps', 's1      3']
 */
export function formatTable({
  columns,
  rows,
}: {
  columns: readonly TableColumn[];
  rows: readonly (readonly string[])[];
}): string[] {
  const widths = columns.map((column, index) =>
    Math.max(column.heading.length, ...rows.map((row) => (row[index] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    columns
      .map((column, index) => {
        const cell = cells[index] ?? '';
        if (index === columns.length - 1 && column.align !== 'right') return cell;
        const width = widths[index] ?? 0;
        return column.align === 'right' ? cell.padStart(width) : cell.padEnd(width);
      })
      .join('  ');
  return [line(columns.map((column) => column.heading)), ...rows.map(line)];
}
