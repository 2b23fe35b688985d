import { describe, expect, it } from 'vitest';
import { formatTable } from './format-table.js';

describe('formatTable', () => {
  it('makes each column as wide as its widest cell, numbers on the right, the last column unpadded', () => {
    expect(
      formatTable({
        columns: [{ heading: 'id' }, { heading: 'steps', align: 'right' }, { heading: 'updated' }],
        rows: [
          ['a-rather-long-session-id', '12', '2026-12-04'],
          ['s1', '3', 'today'],
        ],
      }),
    ).toMatchInlineSnapshot(`
      [
        "id                        steps  updated",
        "a-rather-long-session-id     12  2026-12-04",
        "s1                            3  today",
      ]
    `);
  });
});
