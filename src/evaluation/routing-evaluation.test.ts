import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countToolSpecTokens } from '../context/count-tokens.js';
import { InputFileError } from '../errors/input-file-error.js';
import { formatRoutingReport } from './format-routing-report.js';
import { evaluateRouting } from './routing-evaluation.js';
import { builtInRoutingSet, readRoutingSet } from './routing-set.js';

function tool(name: string, description: string) {
  return { type: 'function', function: { name, description, parameters: { type: 'object', properties: {} } } };
}

function writeSet(tools: unknown[], queries: unknown[]): string {
  const directory = mkdtempSync(join(tmpdir(), 'arbiter-routing-set-'));
  writeFileSync(join(directory, 'tools.json'), JSON.stringify(tools));
  writeFileSync(join(directory, 'queries.jsonl'), queries.map((query) => JSON.stringify(query)).join('\n'));
  return directory;
}

describe('evaluateRouting', () => {
  it('measures recall and tokens exactly on a small set', () => {
    const directory = writeSet(
      [
        tool('track_parcel', 'Where a parcel is.'),
        tool('refund_order', 'Refund money.'),
        tool('book_room', 'Book a hotel room.'),
      ],
      [
        { id: 'a', query: 'where is my parcel', expected: 'track_parcel' },
        { id: 'b', query: '我要退款 money back', locale: 'zh-CN', expected: 'refund_order' },
        { id: 'c', query: 'hello', expected: 'book_room' },
      ],
    );
    const set = readRoutingSet(directory);
    const report = evaluateRouting({ set, topK: 1 });
    const all = report.summaries.at(-1);
    const tokens = set.tools.specs.map(countToolSpecTokens);
    const total = tokens.reduce((sum, count) => sum + count, 0);
    expect(report.summaries.map((summary) => [summary.label, summary.queries])).toEqual([
      ['en', 2],
      ['zh-CN', 1],
      ['all', 3],
    ]);
    expect(all?.recall).toEqual({ 1: 2 / 3, 3: 2 / 3, 5: 2 / 3 });
    // "hello" matches nothing: every tool is sent, so the right one is among them, at full cost.
    expect(all?.noMatch).toBe(1);
    expect(all?.sentRecall).toBe(1);
    expect(all?.allTokensPerStep).toBe(total);
    expect(all?.routedTokensPerStep).toBeCloseTo(((tokens[0] ?? 0) + (tokens[1] ?? 0) + total) / 3);
    expect(report.misses).toEqual([{ id: 'c', query: 'hello', expected: 'book_room', rank: undefined, top: [] }]);
    expect(formatRoutingReport(report).at(-1)).toBe(
      '  missed c (book_room, no shared word): "hello" → nothing matched',
    );
  });

  it('routes the built-in set of 56 tools and 120 requests (en, zh-CN) well enough to send the right tool', () => {
    const set = readRoutingSet(builtInRoutingSet);
    expect(set.tools.names.length).toBeGreaterThanOrEqual(50);
    const report = evaluateRouting({ set });
    const [english, chinese, all] = report.summaries;
    expect([english?.queries, chinese?.queries, all?.queries]).toEqual([60, 60, 120]);
    for (const summary of report.summaries) {
      expect(summary.recall[1]).toBeLessThanOrEqual(summary.recall[3]);
      expect(summary.recall[3]).toBeLessThanOrEqual(summary.recall[5]);
      // A floor, not the figure: docs/routing.md holds the figures, checked by the eval command's test.
      expect(summary.recall[5]).toBeGreaterThan(0.85);
      expect(summary.savedTokensPerStep).toBeGreaterThan(summary.allTokensPerStep / 2);
    }
  });
});

describe('readRoutingSet', () => {
  it.each([
    [
      'an expected tool not in the set',
      [{ id: 'a', query: 'x', expected: 'nope' }],
      /queries\.jsonl:1: "expected" must name a tool/,
    ],
    [
      'an id used twice',
      [
        { id: 'a', query: 'x', expected: 'track_parcel' },
        { id: 'a', query: 'y', expected: 'track_parcel' },
      ],
      /queries\.jsonl:2: id "a" is used twice/,
    ],
    [
      'an unknown locale',
      [{ id: 'a', query: 'x', locale: 'fr', expected: 'track_parcel' }],
      /"locale" must be en or zh-CN/,
    ],
    ['an empty query', [{ id: 'a', query: ' ', expected: 'track_parcel' }], /"query" must be a non-empty string/],
  ])('refuses %s, naming the file and line', (_kind, queries, message) => {
    const directory = writeSet([tool('track_parcel', 'Where a parcel is.')], queries);
    expect(() => readRoutingSet(directory)).toThrow(message);
    try {
      readRoutingSet(directory);
    } catch (error) {
      expect(InputFileError.isInstance(error)).toBe(true);
    }
  });

  it('refuses a tool a registry would refuse, and a missing directory', () => {
    expect(() => readRoutingSet(writeSet([tool('bad name', 'x')], []))).toThrow(/tools\.json: tool name "bad name"/);
    expect(() => readRoutingSet('/no/such/set')).toThrow(/tools\.json: cannot read the file \(ENOENT\)/);
  });
});
