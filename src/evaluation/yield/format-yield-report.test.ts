import { describe, expect, it } from 'vitest';
import { formatYieldReport } from './format-yield-report.js';
import type { YieldRow } from './run-yield-experiment.js';
import type { YieldCondition } from './yield-conditions.js';

function row(call: string, condition: YieldCondition, right: boolean, kind: YieldRow['kind'] = 'enum'): YieldRow {
  return {
    phase: 'yield',
    model: 'm.gguf',
    call,
    source: 'mutation',
    kind,
    condition,
    outcome: right ? 'corrected_1' : 'still_invalid',
    nextValid: right,
    nextRight: right,
    turns: right ? 1 : 2,
    inputTokens: 1000,
    outputTokens: 10,
    next: '',
  };
}

function lineOf(lines: readonly string[], start: string, after = 0): string {
  return lines.slice(after).find((line) => line.startsWith(start)) ?? '';
}

describe('formatYieldReport', () => {
  it('counts a row written twice once', () => {
    const rows = [row('a', 'arbiter', true), row('a', 'vague', false), row('a', 'arbiter', true)];
    const lines = formatYieldReport({ rows, headers: [] });
    expect(lineOf(lines, '| arbiter |')).toContain('| arbiter | 1 | 100.0% [20.7%–100.0%]');
  });

  it('leaves out a call some condition has not answered, even when another condition has two rows for it', () => {
    const rows = [
      row('a', 'arbiter', true),
      row('a', 'vague', false),
      row('b', 'arbiter', false),
      { ...row('b', 'arbiter', false), next: 'written twice, other text' },
    ];
    const lines = formatYieldReport({ rows, headers: [] });
    expect(lines).toContain(
      'Next call after the refusal, 1 broken calls, every condition on the same calls. Shares with 95% Wilson intervals; tokens are per broken call, summed over the turns (whole context as billed, and generated).',
    );
  });

  it('gives each kind and condition its Wilson interval, and compares arbiter with each condition on the same calls', () => {
    const rows = ['a', 'b', 'c', 'd'].flatMap((call, index) => [
      row(call, 'arbiter', index < 3),
      row(call, 'vague', index === 3),
    ]);
    const lines = formatYieldReport({ rows, headers: [] });
    expect(lineOf(lines, '| enum |')).toBe('| enum | 3/4 75.0% [30.1%–95.4%] | 1/4 25.0% [4.6%–69.9%] |');
    const paired = lines.findIndex((line) => line.startsWith("arbiter's message against each other condition"));
    expect(lineOf(lines, '| enum |', paired)).toBe('| enum | 3 : 1 (p 0.625) |');
    expect(lineOf(lines, '| **all kinds** |', paired)).toBe('| **all kinds** | 3 : 1 (p 0.625) |');
  });
});
