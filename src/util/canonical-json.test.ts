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

  it('writes exactly the sorted copy whether or not the keys were in order already', () => {
    // The reference: what canonicalJson always wrote (a sorted copy, then JSON.stringify).
    const sortedCopy = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(sortedCopy);
      if (typeof value !== 'object' || value === null) return value;
      const sorted: Record<string, unknown> = {};
      for (const key of Object.keys(value).sort()) {
        Object.defineProperty(sorted, key, {
          value: sortedCopy((value as Record<string, unknown>)[key]),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return sorted;
    };
    const inOrder = (value: unknown): unknown => JSON.parse(JSON.stringify(sortedCopy(value)));
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(JSON.stringify(sortedCopy(value)));
        expect(canonicalJson(inOrder(value))).toBe(JSON.stringify(sortedCopy(value)));
      }),
    );
    const odd = [
      { b: undefined, a: () => 1, c: [undefined, () => 2] },
      { '10': 1, '9': 2, a: 3 },
      { a: new Date(0), b: { toJSON: () => 'x' } },
      { a: 1, toJSON: () => ({ z: 1, a: 2 }) },
      Object.assign(Object.create(null) as object, { b: 1, a: 2 }),
      [new String('ab'), new Number(1), null, true],
    ];
    for (const value of odd) expect(canonicalJson(value)).toBe(JSON.stringify(sortedCopy(value)));
  });

  it('gives the same text for any key order of the same value', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (record) => {
        const reversed = Object.fromEntries(Object.entries(record).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(record));
      }),
    );
  });

  it('reads own keys only, even with an enumerable key inherited from Object.prototype', () => {
    Object.defineProperty(Object.prototype, 'aa_inherited', {
      value: 1,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    try {
      expect(canonicalJson({ b: 1, c: { d: 2 } })).toBe('{"b":1,"c":{"d":2}}');
      expect(canonicalJson({ c: 1, b: 2 })).toBe('{"b":2,"c":1}');
    } finally {
      delete (Object.prototype as Record<string, unknown>)['aa_inherited'];
    }
  });
});
