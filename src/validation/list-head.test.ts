import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../core/json-schema.js';
import { compileToolValidator } from './compile-tool-validator.js';
import { formatValidationMessage } from './format-validation-message.js';
import { listHead } from './list-head.js';

const manyValues = Array.from({ length: 200_000 }, (_, index) => `value_${index}`);
const manyFields = Object.fromEntries(Array.from({ length: 5_000 }, (_, index) => [`field_${index}`, {}]));

describe('listHead', () => {
  it('keeps the first items and counts the rest', () => {
    expect(listHead(['a', 'b', 'c'], 2)).toEqual({ shown: ['a', 'b'], more: 1 });
    expect(listHead(['a'], 2)).toEqual({ shown: ['a'], more: 0 });
  });

  it('rejects a value outside a 200,000-value enum with a short message, in English and Chinese', () => {
    const schema: JsonSchema = { type: 'object', properties: { mode: { enum: manyValues } } };
    for (const locale of ['en', 'zh-CN'] as const) {
      const issues = compileToolValidator({ schema, toolName: 'pick', locale })({ mode: 'other' });
      const message = formatValidationMessage({ toolName: 'pick', issues, locale });
      expect(message.length).toBeLessThan(1_000);
      expect(message).toContain('"value_19"');
      expect(message).not.toContain('"value_20"');
      expect(message).toContain('199980');
    }
  });

  it('rejects an unknown field among 5,000 allowed ones with a short list', () => {
    const schema: JsonSchema = { type: 'object', properties: manyFields, additionalProperties: false };
    const issues = compileToolValidator({ schema, toolName: 'pick' })({ nope: 1 });
    const message = formatValidationMessage({ toolName: 'pick', issues });
    expect(message.length).toBeLessThan(1_000);
    expect(message).toContain('and 4980 more');
  });
});
