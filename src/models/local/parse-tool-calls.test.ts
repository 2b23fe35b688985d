import { describe, expect, it } from 'vitest';
import { parseToolCalls } from './parse-tool-calls.js';

describe('parseToolCalls', () => {
  it('reads calls in the template syntax, keeping the text around them', () => {
    expect(
      parseToolCalls({
        text: 'Let me look.\n<tool_call>\n{"name": "query_order", "arguments": {"order_id": "SO20260901"}}\n</tool_call>',
      }),
    ).toEqual({ content: 'Let me look.', calls: [{ name: 'query_order', arguments: '{"order_id":"SO20260901"}' }] });
  });

  it('reads a fenced JSON block and a bare JSON object, as small models write them', () => {
    const call = { name: 'track_shipment', arguments: '{"order_id":"SO20260902"}' };
    expect(
      parseToolCalls({ text: '```json\n{"name": "track_shipment", "arguments": {"order_id": "SO20260902"}}\n```' })
        .calls,
    ).toEqual([call]);
    expect(
      parseToolCalls({ text: '{"name": "track_shipment", "parameters": {"order_id": "SO20260902"}}' }).calls,
    ).toEqual([call]);
  });

  it('reads a fenced block whose closing fence was never written (generation stopped once the JSON closed)', () => {
    expect(
      parseToolCalls({
        text: '```json\n{\n  "name": "track_shipment",\n  "arguments": {\n    "order_id": "20260903"\n  }\n}',
      }),
    ).toEqual({ content: null, calls: [{ name: 'track_shipment', arguments: '{"order_id":"20260903"}' }] });
  });

  it('keeps broken JSON arguments as written instead of repairing them', () => {
    expect(
      parseToolCalls({
        text: '<tool_call>\n{"name": "apply_refund", "arguments": {"amount_cents": 4550,}}\n</tool_call>',
      }).calls,
    ).toEqual([{ name: 'apply_refund', arguments: '{"amount_cents": 4550,}' }]);
  });

  it('reads calls written one after the other in one block, as small models do', () => {
    expect(
      parseToolCalls({
        text: '<tool_call>\n{"name": "query_order", "arguments": {"order_id": "SO20260901"}}\n{"name": "track_shipment", "arguments": {"order_id": "SO20260901"}}\n</tool_call>',
      }).calls,
    ).toEqual([
      { name: 'query_order', arguments: '{"order_id":"SO20260901"}' },
      { name: 'track_shipment', arguments: '{"order_id":"SO20260901"}' },
    ]);
  });

  it('reads the same call written again and again as separate calls, and a copy cut off at the end as broken', () => {
    const again = '{"name": "query_order", "arguments": {"order_id": "SO20260901"}}';
    expect(
      parseToolCalls({ text: `${again}\n${again}\n${again}\n{"name": "query_order", "arguments": {"order` }),
    ).toEqual({
      content: null,
      calls: [
        { name: 'query_order', arguments: '{"order_id":"SO20260901"}' },
        { name: 'query_order', arguments: '{"order_id":"SO20260901"}' },
        { name: 'query_order', arguments: '{"order_id":"SO20260901"}' },
        { name: 'query_order', arguments: '{"order' },
      ],
    });
  });

  it('reads the calls of several <tool_call> blocks, and whole calls before a cut-off one in the same block', () => {
    expect(
      parseToolCalls({
        text: '<tool_call>\n{"name": "query_order", "arguments": {"order_id": "SO20260901"}}\n</tool_call>\n<tool_call>\n{"name": "track_shipment", "arguments": {"order_id": "SO20260901"}}\n{"name": "add_order_note", "arguments": {"order_id": "SO2026',
      }).calls,
    ).toEqual([
      { name: 'query_order', arguments: '{"order_id":"SO20260901"}' },
      { name: 'track_shipment', arguments: '{"order_id":"SO20260901"}' },
      { name: 'add_order_note', arguments: '{"order_id": "SO2026' },
    ]);
  });

  it("reads the runtime's own call syntax for templates without tools", () => {
    const syntax = { prefix: '||call: ', paramsPrefix: '(', suffix: ')' };
    expect(parseToolCalls({ text: '||call: query_order({"order_id": "SO20260901"})', syntax }).calls).toEqual([
      { name: 'query_order', arguments: '{"order_id":"SO20260901"}' },
    ]);
  });

  it('returns plain text as the answer when there is no call', () => {
    expect(parseToolCalls({ text: ' Your order has shipped. ' })).toEqual({
      content: 'Your order has shipped.',
      calls: [],
    });
    expect(parseToolCalls({ text: '{"not": "a call"}' })).toEqual({ content: '{"not": "a call"}', calls: [] });
  });
});
