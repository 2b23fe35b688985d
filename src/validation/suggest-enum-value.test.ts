import { describe, expect, it } from 'vitest';
import { suggestEnumValue } from './suggest-enum-value.js';

const reasons = ['damaged', 'wrong_item', 'missing_item', 'not_received', 'not_as_described', 'changed_mind', 'other'];

describe('suggestEnumValue', () => {
  it('offers the value a misspelt or re-cased string meant', () => {
    expect(suggestEnumValue({ sent: 'damage', allowed: reasons })).toBe('damaged');
    expect(suggestEnumValue({ sent: 'Wrong-Item', allowed: reasons })).toBe('wrong_item');
    expect(suggestEnumValue({ sent: 'not recieved', allowed: reasons })).toBe('not_received');
    expect(suggestEnumValue({ sent: 'not_as_desc', allowed: reasons })).toBe('not_as_described');
  });

  it('offers nothing for a synonym, a short guess or a value two candidates are equally close to', () => {
    expect(suggestEnumValue({ sent: 'broken', allowed: reasons })).toBeUndefined();
    expect(suggestEnumValue({ sent: 'ot', allowed: reasons })).toBeUndefined();
    expect(suggestEnumValue({ sent: 'missing', allowed: ['missing_item', 'missing_part'] })).toBeUndefined();
    expect(suggestEnumValue({ sent: 'cat', allowed: ['bat', 'hat'] })).toBeUndefined();
    expect(suggestEnumValue({ sent: 'Low', allowed: ['low', 'LOW'] })).toBeUndefined();
  });

  it('ignores values that are not strings and bounds what it compares', () => {
    expect(suggestEnumValue({ sent: '1', allowed: [1, 2, null] })).toBeUndefined();
    expect(suggestEnumValue({ sent: 'x'.repeat(10_000), allowed: ['x'.repeat(10_000)] })).toBeUndefined();
    expect(suggestEnumValue({ sent: '', allowed: ['', 'a'] })).toBeUndefined();
  });

  it('compares spelling only in an enum of at most 1,000 strings; same words and a unique start in any', () => {
    const many = (count: number) => Array.from({ length: count }, (_, index) => `value_${index}_of_the_list`);
    expect(suggestEnumValue({ sent: 'value_999_of_the_lisst', allowed: many(1_000) })).toBe('value_999_of_the_list');
    expect(suggestEnumValue({ sent: 'value_999_of_the_lisst', allowed: many(200_000) })).toBeUndefined();
    expect(suggestEnumValue({ sent: 'Value-199999 of the list', allowed: many(200_000) })).toBe(
      'value_199999_of_the_list',
    );
    expect(suggestEnumValue({ sent: 'value_199999_of', allowed: many(200_000) })).toBe('value_199999_of_the_list');
  });
});
