import { describe, expect, it } from 'vitest';
import { distinctCalls, writesACallAgain } from './distinct-calls.js';

const lookup = '{"name": "query_order", "arguments": {"order_id": "SO20260901"}}';

describe('writesACallAgain', () => {
  it('is true once the same whole call is written a second time, in the bare form and between <tool_call> tags', () => {
    expect(writesACallAgain({ text: lookup })).toBe(false);
    expect(
      writesACallAgain({ text: `${lookup}\n{"name": "query_order", "arguments": {"order_id": "SO20260901"}` }),
    ).toBe(false);
    expect(writesACallAgain({ text: `${lookup}\n${lookup}` })).toBe(true);
    expect(writesACallAgain({ text: `<tool_call>\n${lookup}\n</tool_call>\n<tool_call>\n${lookup}` })).toBe(true);
  });

  it('is false for different calls one after the other (parallel calls go on)', () => {
    expect(
      writesACallAgain({
        text: `${lookup}\n{"name": "track_shipment", "arguments": {"order_id": "SO20260901"}}\n{"name": "query_order", "arguments": {"order_id": "SO20260902"}}`,
      }),
    ).toBe(false);
  });
});

describe('distinctCalls', () => {
  it('keeps each call once, in the order first written', () => {
    const one = { name: 'query_order', arguments: '{"order_id":"SO20260901"}' };
    const two = { name: 'track_shipment', arguments: '{"order_id":"SO20260901"}' };
    expect(distinctCalls([one, two, { ...one }, two])).toEqual([one, two]);
  });
});
