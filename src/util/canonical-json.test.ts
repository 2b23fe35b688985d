import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';

describe('canonicalJson', () => {
  it('sorts keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
  });

  it('keeps a __proto__ key as data instead of changing the prototype', () => {
    const value = JSON.parse('{"__proto__": {"x": 1}, "a": 2}') as unknown;
    expect(canonicalJson(value)).toBe('{"__proto__":{"x":1},"a":2}');
  });

  it('gives the same text for any key order of the same value', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (record) => {
        const reversed = Object.fromEntries(Object.entries(record).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(record));
      }),
    );
  });
});
