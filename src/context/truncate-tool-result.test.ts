import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  TOOL_RESULT_CHARS,
  TOOL_RESULT_ITEM_CHARS,
  TRUNCATION_KEY,
  truncateToolResult,
} from './truncate-tool-result.js';

const hits = (count: number, textLength: number) =>
  Array.from({ length: count }, (_, index) => ({
    id: `doc-${index}`,
    text: `${index} `.padEnd(textLength, 'x'),
    source: `https://docs.example.com/${index}`,
  }));

describe('truncateToolResult', () => {
  it('returns a result within the limits unchanged', () => {
    const content = JSON.stringify({ order_id: 'SO20260901', status: 'shipped' });
    expect(truncateToolResult(content)).toBe(content);
  });

  it('cuts a long string to 800 characters and says how much was cut', () => {
    const content = JSON.stringify({ order_id: 'SO20260901', description: 'a'.repeat(1500) });
    const parsed = JSON.parse(truncateToolResult(content)) as { order_id: string; description: string };
    expect(parsed.order_id).toBe('SO20260901');
    expect(parsed.description.length).toBeLessThanOrEqual(TOOL_RESULT_ITEM_CHARS);
    const [, cut] = / …\[cut (\d+) characters\]$/.exec(parsed.description) ?? [];
    expect(parsed.description.indexOf(' …[cut') + Number(cut)).toBe(1500);
  });

  it('keeps the first list elements whole, and names the ids of those it leaves out', () => {
    const result = truncateToolResult(JSON.stringify({ hits: hits(40, 300), returned: 40 }));
    expect(result.length).toBeLessThanOrEqual(TOOL_RESULT_CHARS);
    const parsed = JSON.parse(result) as { hits: { id: string }[]; returned: number; _truncated: { hits: string } };
    expect(parsed.returned).toBe(40);
    expect(parsed.hits.map((hit) => hit.id)).toEqual(['doc-0', 'doc-1', 'doc-2', 'doc-3']);
    expect(parsed[TRUNCATION_KEY].hits).toMatchInlineSnapshot(
      `"36 of 40 items omitted (ids: doc-4, doc-5, doc-6, doc-7, doc-8, doc-9, doc-10, doc-11, doc-12, doc-13, doc-14, doc-15, doc-16, doc-17, doc-18, doc-19, doc-20, doc-21, doc-22, doc-23, doc-24, doc-25, doc-26, doc-27, doc-28, doc-29, doc-30, doc-31, doc-32, doc-33, doc-34, doc-35, doc-36, doc-37, doc-38, doc-39)"`,
    );
  });

  it('cuts one oversized element down to 800 characters, ids and short fields whole', () => {
    const result = truncateToolResult(JSON.stringify({ hits: hits(1, 5000) }));
    const parsed = JSON.parse(result) as { hits: { id: string; text: string; source: string }[] };
    const [hit] = parsed.hits;
    expect(JSON.stringify(hit).length).toBeLessThanOrEqual(TOOL_RESULT_ITEM_CHARS);
    expect(hit?.id).toBe('doc-0');
    expect(hit?.source).toBe('https://docs.example.com/0');
    expect(hit?.text).toMatch(/ …\[cut \d+ characters\]$/);
  });

  it('marks the cut inside a top-level list with a last element', () => {
    const orders = Array.from({ length: 300 }, (_, index) => ({ order_id: `SO2026${String(index).padStart(4, '0')}` }));
    const parsed = JSON.parse(truncateToolResult(JSON.stringify(orders))) as unknown[];
    expect(parsed.at(-1)).toMatch(/^\[\d+ of 300 items omitted \(ids: SO2026\d{4}, /);
  });

  it('drops the largest fields of an object with too many of them, and names them', () => {
    const wide = Object.fromEntries(Array.from({ length: 60 }, (_, index) => [`field_${index}`, 'v'.repeat(60)]));
    const parsed = JSON.parse(truncateToolResult(JSON.stringify({ order_id: 'SO20260901', ...wide }))) as Record<
      string,
      string
    >;
    expect(parsed.order_id).toBe('SO20260901');
    expect(parsed[TRUNCATION_KEY]).toMatch(/^fields cut: field_/);
  });

  it('cuts text that is not JSON at the end', () => {
    const result = truncateToolResult('plain '.repeat(1000));
    expect(result).toHaveLength(TOOL_RESULT_CHARS);
    expect(result.endsWith(' …[cut 4023 characters]')).toBe(true);
  });

  it('takes other limits', () => {
    const result = truncateToolResult(JSON.stringify({ hits: hits(10, 100) }), {
      maxItemChars: 200,
      maxResultChars: 500,
    });
    expect(result.length).toBeLessThanOrEqual(500);
  });

  it('never returns more than the limit, whatever the JSON', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 4 }), fc.integer({ min: 0, max: 3 }), (json, repeat) => {
        const content = repeat === 0 ? json : `[${Array.from({ length: repeat * 40 }, () => json).join(',')}]`;
        const result = truncateToolResult(content, { maxItemChars: 120, maxResultChars: 400 });
        expect(result.length).toBeLessThanOrEqual(400);
        if (content.length <= 120) expect(result).toBe(content);
      }),
      { numRuns: 300 },
    );
  });
});
