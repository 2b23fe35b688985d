import { describe, expect, it } from 'vitest';
import type { ToolSpec } from '../core/tool-spec.js';
import { countTokens, countToolSpecTokens, TOOL_SPEC_OVERHEAD_TOKENS } from './count-tokens.js';

const queryOrder: ToolSpec = {
  type: 'function',
  function: {
    name: 'query_order',
    description: 'Look up one order by number. Not for shipments: use track_shipment.',
    parameters: {
      type: 'object',
      properties: {
        order_id: { type: 'string', description: 'Order number, SO + 8 digits', pattern: '^SO\\d{8}$' },
      },
      required: ['order_id'],
    },
  },
};

describe('countTokens', () => {
  it('counts o200k_base tokens for English and Chinese text', () => {
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('Where is my order SO20260901?')).toBe(9);
    expect(countTokens('订单号 SO20260901 在哪里？')).toBe(9);
  });

  it('returns 0 for the empty string', () => {
    expect(countTokens('')).toBe(0);
  });

  it('counts special-token text as plain text instead of throwing', () => {
    expect(countTokens('a <|endoftext|> b')).toBeGreaterThan(3);
  });
});

describe('countToolSpecTokens', () => {
  it('counts the JSON of name, description and parameters plus the per-tool overhead', () => {
    const json = JSON.stringify({
      description: queryOrder.function.description,
      name: queryOrder.function.name,
      parameters: {
        properties: {
          order_id: { description: 'Order number, SO + 8 digits', pattern: '^SO\\d{8}$', type: 'string' },
        },
        required: ['order_id'],
        type: 'object',
      },
    });
    expect(countToolSpecTokens(queryOrder)).toBe(countTokens(json) + TOOL_SPEC_OVERHEAD_TOKENS);
  });

  it('does not depend on the order of keys in the schema', () => {
    const reordered: ToolSpec = {
      type: 'function',
      function: {
        parameters: {
          required: ['order_id'],
          properties: {
            order_id: { pattern: '^SO\\d{8}$', description: 'Order number, SO + 8 digits', type: 'string' },
          },
          type: 'object',
        },
        description: queryOrder.function.description,
        name: 'query_order',
      },
    };
    expect(countToolSpecTokens(reordered)).toBe(countToolSpecTokens(queryOrder));
  });

  it('grows with the description, so a longer definition costs more per turn', () => {
    const longer: ToolSpec = {
      type: 'function',
      function: {
        ...queryOrder.function,
        description: `${queryOrder.function.description} Refunds: use query_refund.`,
      },
    };
    expect(countToolSpecTokens(longer)).toBeGreaterThan(countToolSpecTokens(queryOrder));
  });
});
