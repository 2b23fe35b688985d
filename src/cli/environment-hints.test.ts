import { describe, expect, it } from 'vitest';
import { readModelConfig } from '../models/model-config.js';
import { storeVariableHint, unknownVariableWarnings } from './environment-hints.js';

describe('unknownVariableWarnings', () => {
  it('names an ARBITER_ variable arbiter does not read, and the one it most likely meant', () => {
    expect(
      unknownVariableWarnings({
        ARBITER_STORE: 'postgres://u@h/db',
        ARBITER_MODLE: 'gpt',
        ARBITER_SOMETHING_ELSE_ENTIRELY: '1',
        ARBITER_STORE_URL: 'postgres://u@h/db',
        HOME: '/root',
      }),
    ).toEqual([
      'ARBITER_MODLE is not a variable arbiter reads (did you mean ARBITER_MODEL?); it is ignored',
      'ARBITER_SOMETHING_ELSE_ENTIRELY is not a variable arbiter reads; it is ignored',
      'ARBITER_STORE is not a variable arbiter reads (did you mean ARBITER_STORE_URL?); it is ignored',
    ]);
  });

  it('says nothing of the variables arbiter reads, nor prints their values', () => {
    const warnings = unknownVariableWarnings({
      ARBITER_API_KEY: 'sk-secret',
      ARBITER_STORE_URL: 'x',
      ARBITER_KEY: 'sk-x',
    });
    expect(warnings).toEqual([
      'ARBITER_KEY is not a variable arbiter reads (did you mean ARBITER_API_KEY?); it is ignored',
    ]);
    expect(warnings.join('')).not.toContain('sk-');
  });
});

describe('storeVariableHint', () => {
  it("names DATABASE_URL when it is set and arbiter's own variable is not", () => {
    expect(storeVariableHint({ DATABASE_URL: 'postgres://u:p@h/db' })).toBe(
      ' (DATABASE_URL is set, but arbiter reads ARBITER_STORE_URL or --store URL)',
    );
    expect(storeVariableHint({ DATABASE_URL: 'postgres://u:p@h/db', ARBITER_STORE_URL: 'postgres://h/a' })).toBe('');
    expect(storeVariableHint({})).toBe('');
  });
});

describe('readModelConfig', () => {
  it('names OPENAI_API_KEY beside ARBITER_API_KEY when that is what is set', () => {
    expect(() =>
      readModelConfig({
        ARBITER_BASE_URL: 'https://api.openai.com/v1',
        ARBITER_MODEL: 'gpt-4o',
        OPENAI_API_KEY: 'sk-x',
      }),
    ).toThrow(
      'model configuration incomplete: set ARBITER_API_KEY (an OpenAI-compatible base URL, its API key and a model id); OPENAI_API_KEY is set, but arbiter reads ARBITER_API_KEY',
    );
  });
});
