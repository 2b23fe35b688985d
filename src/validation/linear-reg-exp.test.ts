import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../core/json-schema.js';
import { ToolDefinitionError } from '../errors/tool-definition-error.js';
import { compileToolValidator } from './compile-tool-validator.js';

const nestedQuantifier: JsonSchema = {
  type: 'object',
  properties: { code: { type: 'string', pattern: '^(a+)+$' } },
  patternProperties: { '^(x+)+$': { type: 'string' } },
};

function definitionError(schema: JsonSchema): ToolDefinitionError {
  try {
    compileToolValidator({ schema, toolName: 'lookup' });
  } catch (error) {
    if (ToolDefinitionError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ToolDefinitionError');
}

describe('linearRegExp', () => {
  it('rejects ^(a+)+$ against 10,000 characters without backtracking', () => {
    const validate = compileToolValidator({ schema: nestedQuantifier, toolName: 'lookup' });
    const started = performance.now();
    const issues = validate({ code: `${'a'.repeat(10_000)}b` });
    const keyIssues = validate({ [`${'x'.repeat(10_000)}y`]: 1 });
    console.info(`^(a+)+$ on 10,001 characters: ${(performance.now() - started).toFixed(1)} ms for two calls`);
    expect(issues.map((issue) => issue.code)).toEqual(['pattern_mismatch']);
    expect(keyIssues).toEqual([]);
    expect(validate({ code: 'a'.repeat(10_000) })).toEqual([]);
  });

  it('keeps JavaScript escapes, classes and unicode working', () => {
    const validate = compileToolValidator({
      schema: {
        type: 'object',
        properties: {
          date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
          word: { type: 'string', pattern: '^\\p{L}+$' },
          accent: { type: 'string', pattern: '^caf\\u00e9$' },
          path: { type: 'string', pattern: '^a\\/b$' },
        },
      },
      toolName: 'lookup',
    });
    expect(validate({ date: '2024-05-01', word: 'Grüße', accent: 'café', path: 'a/b' })).toEqual([]);
    expect(validate({ date: '2024-5-1' }).map((issue) => issue.path)).toEqual(['$.date']);
  });

  it('refuses a pattern with lookahead at registration, naming the tool and the field', () => {
    const error = definitionError({
      type: 'object',
      properties: { items: { type: 'array', items: { type: 'string', pattern: '^(?=.*\\d)\\w+$' } } },
    });
    expect(error.toolName).toBe('lookup');
    expect(error.message).toMatchInlineSnapshot(
      `"tool "lookup": the pattern "^(?=.*\\\\d)\\\\w+$" at parameters/properties/items/items/pattern cannot be matched in linear time (invalid or unsupported Perl syntax: \`(?=\`); lookahead, lookbehind and backreferences are not supported"`,
    );
  });

  it('refuses a patternProperties key with a backreference, naming where it sits', () => {
    const error = definitionError({ type: 'object', patternProperties: { '^(a)\\1$': { type: 'string' } } });
    expect(error.message).toMatchInlineSnapshot(
      `"tool "lookup": the pattern "^(a)\\\\1$" at parameters/patternProperties/^(a)\\1$ cannot be matched in linear time (invalid escape sequence: \`\\1\`); lookahead, lookbehind and backreferences are not supported"`,
    );
  });

  it('does not take a property named pattern for the keyword', () => {
    const validate = compileToolValidator({
      schema: { type: 'object', properties: { pattern: { type: 'string', description: '(?=' } } },
      toolName: 'lookup',
    });
    expect(validate({ pattern: '(?=x)' })).toEqual([]);
  });
});
