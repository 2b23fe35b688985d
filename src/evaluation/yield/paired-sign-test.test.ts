import { describe, expect, it } from 'vitest';
import { pairedSignTest } from './paired-sign-test.js';

describe('pairedSignTest', () => {
  it('gives the exact two-sided binomial p-value of the discordant pairs', () => {
    expect(pairedSignTest({ firstOnly: 9, secondOnly: 1 }).p).toBeCloseTo(0.021484375, 9);
    expect(pairedSignTest({ firstOnly: 1, secondOnly: 9 }).p).toBeCloseTo(0.021484375, 9);
    expect(pairedSignTest({ firstOnly: 3, secondOnly: 1 }).p).toBeCloseTo(0.625, 9);
    // 20 : 0 is 2 / 2^20.
    expect(pairedSignTest({ firstOnly: 20, secondOnly: 0 }).p).toBeCloseTo(2 / 2 ** 20, 12);
  });

  it('is 1 for an even split or no discordant pair, and stays finite for many pairs', () => {
    expect(pairedSignTest({ firstOnly: 5, secondOnly: 5 }).p).toBe(1);
    expect(pairedSignTest({ firstOnly: 0, secondOnly: 0 }).p).toBe(1);
    expect(pairedSignTest({ firstOnly: 700, secondOnly: 600 }).p).toBeGreaterThan(0);
    expect(pairedSignTest({ firstOnly: 700, secondOnly: 600 }).p).toBeLessThan(0.01);
  });
});
