import { describe, expect, it } from 'vitest';
import { ModelError } from '../errors/model-error.js';
import { costOf, readPriceTable } from './pricing.js';

const prices = readPriceTable({
  'gpt-4o-mini': { inputPerMillion: 0.15, cachedInputPerMillion: 0.075, outputPerMillion: 0.6 },
  'local-model': { inputPerMillion: 0, outputPerMillion: 0 },
  'no-cache-discount': { inputPerMillion: 2, outputPerMillion: 8 },
});

describe('readPriceTable', () => {
  it('reads prices per million tokens by model id', () => {
    expect(prices['gpt-4o-mini']).toEqual({
      inputPerMillion: 0.15,
      cachedInputPerMillion: 0.075,
      outputPerMillion: 0.6,
    });
    expect(prices['no-cache-discount']).toEqual({ inputPerMillion: 2, outputPerMillion: 8 });
  });

  it('rejects a malformed table naming every bad entry, typos included', () => {
    let caught: unknown;
    try {
      readPriceTable({
        'gpt-4o': { inputPerMilion: 2.5, outputPerMillion: 10 },
        'gpt-4o-mini': { inputPerMillion: -1, outputPerMillion: '0.6' },
        broken: 3,
      });
    } catch (error) {
      caught = error;
    }
    expect(ModelError.isInstance(caught) && caught.kind).toBe('request');
    expect((caught as Error).message).toMatchInlineSnapshot(
      `"price table invalid: gpt-4o: unknown field "inputPerMilion" (expected inputPerMillion, outputPerMillion, cachedInputPerMillion); gpt-4o: inputPerMillion must be a number ≥ 0, got nothing; gpt-4o-mini: inputPerMillion must be a number ≥ 0, got -1; gpt-4o-mini: outputPerMillion must be a number ≥ 0, got "0.6"; broken: must be an object with inputPerMillion and outputPerMillion"`,
    );
    expect(() => readPriceTable([])).toThrow(/price table invalid/);
  });
});

describe('costOf', () => {
  it('prices cached input tokens apart from the rest of the input', () => {
    const cost = costOf({
      model: 'gpt-4o-mini',
      usage: { inputTokens: 12_000, outputTokens: 800, cachedInputTokens: 10_000 },
      prices,
    });
    expect(cost?.input).toBeCloseTo(0.0003, 12);
    expect(cost?.cachedInput).toBeCloseTo(0.00075, 12);
    expect(cost?.output).toBeCloseTo(0.00048, 12);
    expect(cost?.total).toBeCloseTo(0.00153, 12);
  });

  it('prices cached tokens at the input price when the table has no cached price', () => {
    const usage = { inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: 400_000 };
    expect(costOf({ model: 'no-cache-discount', usage, prices })?.total).toBeCloseTo(2, 12);
  });

  it('says "unknown" (undefined), not "free", for a model without a price', () => {
    const usage = { inputTokens: 10, outputTokens: 5 };
    expect(costOf({ model: 'gpt-4o-mini-2024-07-18', usage, prices })).toBeUndefined();
    expect(costOf({ model: 'toString', usage, prices })).toBeUndefined();
    expect(costOf({ model: 'local-model', usage, prices })).toEqual({ input: 0, cachedInput: 0, output: 0, total: 0 });
  });
});
