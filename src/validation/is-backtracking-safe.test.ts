import fc from 'fast-check';
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { isBacktrackingSafe } from './is-backtracking-safe.js';

describe('isBacktrackingSafe', () => {
  it.each([
    '^SO\\d{8}$',
    '^RF\\d{10}$',
    '^[A-Z]{3}-\\d{4}$',
    '^[a-z0-9_]+$',
    '^\\p{L}+$',
    '^(?:ab)c*$',
    '^[^\\]]{2,5}$',
  ])('lets %s run natively', (pattern) => {
    expect(isBacktrackingSafe(pattern)).toBe(true);
  });

  it.each([
    ['^(a+)+$', 'a quantified group'],
    ['^(?:ab){3}$', 'a quantified group, even with a fixed count'],
    ['(a|b)c', 'not anchored'],
    ['^a|b$', 'alternation'],
    ['^a?a?a?aaa$', 'several varying quantifiers'],
    ['^\\d+\\d+$', 'two unbounded quantifiers'],
    ['^a{1,10}b{1,10}$', 'two ranges'],
    ['^(a)\\1$', 'a backreference'],
    ['^(?=a)a$', 'lookahead'],
    ['^a$b', 'an anchor inside'],
    ['^a{2', 'a broken quantifier'],
    ['^[a-z', 'an unclosed class'],
  ])('sends %s to RE2 (%s)', (pattern) => {
    expect(isBacktrackingSafe(pattern)).toBe(false);
  });

  it('agrees with RE2 on what the patterns it lets run natively accept', () => {
    const patterns = ['^SO\\d{8}$', '^[A-Z]{3}-\\d{4}$', '^[a-z0-9_]+$', '^x[ab]{2,4}y$'];
    fc.assert(
      fc.property(
        fc.constantFrom(...patterns),
        fc.string({ unit: fc.constantFrom('S', 'O', '1', 'a', 'b', 'x', 'y', 'Z', '-', '_') }),
        (pattern, text) => {
          const re2 = RE2JS.compile(RE2JS.translateRegExp(pattern));
          expect(new RegExp(pattern, 'u').test(text)).toBe(re2.test(text));
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
