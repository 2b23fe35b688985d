import { describe, expect, it } from 'vitest';
import { declaredTypes, hasJsonType } from './declared-types.js';

describe('declaredTypes', () => {
  it('reads one type, an array of types, and ignores what is not a type name', () => {
    expect(declaredTypes('string')).toEqual(['string']);
    expect(declaredTypes(['string', 'null', 3])).toEqual(['string', 'null']);
    expect(declaredTypes(undefined)).toEqual([]);
    expect(declaredTypes({ type: 'string' })).toEqual([]);
  });
});

describe('hasJsonType', () => {
  it('tells JSON types apart as JSON Schema does', () => {
    expect(hasJsonType(3, 'integer')).toBe(true);
    expect(hasJsonType(3.5, 'integer')).toBe(false);
    expect(hasJsonType(3.5, 'number')).toBe(true);
    expect(hasJsonType(null, 'null')).toBe(true);
    expect(hasJsonType(null, 'object')).toBe(false);
    expect(hasJsonType([], 'object')).toBe(false);
    expect(hasJsonType([], 'array')).toBe(true);
    expect(hasJsonType({}, 'object')).toBe(true);
    expect(hasJsonType('true', 'boolean')).toBe(false);
    expect(hasJsonType(true, 'boolean')).toBe(true);
    expect(hasJsonType('x', 'string')).toBe(true);
  });
});
