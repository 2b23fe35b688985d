import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../core/chat-message.js';
import { messageJson } from './message-json.js';

/** Any text, lone surrogates, controls and quotes included. */
const text = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom('"', '\\', '\u2028', '\ud800', '\u007f', '{"a":1}'),
  // Around the length up to which the direct path checks a text itself.
  fc.string({ unit: 'binary', minLength: 250, maxLength: 260 }),
  fc.constantFrom('x'.repeat(256), `${'x'.repeat(255)}"`, 'x'.repeat(257)),
);

const call = fc.record({
  id: text,
  type: fc.constant('function' as const),
  function: fc.record({ name: text, arguments: text }),
});

const message = fc.oneof(
  fc.record({ role: fc.constant('tool' as const), tool_call_id: text, content: text }),
  fc.record({
    role: fc.constant('assistant' as const),
    content: fc.constant(null),
    tool_calls: fc.array(call, { maxLength: 3 }),
  }),
  // Shapes the direct path leaves to JSON.stringify.
  fc.record({ role: fc.constant('tool' as const), tool_call_id: text, content: text, untrusted: text }),
  fc.record(
    { role: fc.constant('assistant' as const), content: fc.oneof(text, fc.constant(null)), tool_calls: fc.array(call) },
    { requiredKeys: ['role', 'content'] },
  ),
  fc.record({ role: fc.constantFrom('user' as const, 'system' as const), content: text }),
  fc.record({ content: fc.constant(null), role: fc.constant('assistant' as const), tool_calls: fc.array(call) }),
  fc.record({ tool_call_id: text, role: fc.constant('tool' as const), content: text }),
);

describe('messageJson', () => {
  it('writes exactly what JSON.stringify writes, for any message (property)', () => {
    fc.assert(
      fc.property(message, (sample) => {
        expect(messageJson(sample as ChatMessage)).toBe(JSON.stringify(sample));
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves to JSON.stringify what it would write differently: toJSON, a class, undefined and other types, holes', () => {
    const calls = [{ id: 'call_1', type: 'function', function: { name: 'query_order', arguments: '{}' } }];
    class Answer {
      role = 'tool';
      tool_call_id = 'call_1';
      content = 'x';
    }
    const holey: unknown[] = [];
    holey[1] = calls[0];
    const odd: unknown[] = [
      new Answer(),
      { role: 'tool', tool_call_id: 'call_1', content: 'x', toJSON: () => 'replaced' },
      { role: 'tool', tool_call_id: 'call_1', content: undefined },
      { role: 'tool', tool_call_id: 1, content: { nested: true } },
      { role: 'assistant', content: null, tool_calls: holey },
      { role: 'assistant', content: null, tool_calls: [{ ...calls[0], provider_metadata: { google: { s: 1 } } }] },
      { role: 'assistant', content: null, tool_calls: [{ ...calls[0], function: { arguments: '{}', name: 'q' } }] },
      { role: 'assistant', content: null, tool_calls: [{ ...calls[0], function: { name: 'q', arguments: { a: 1 } } }] },
      { role: 'assistant', content: null, tool_calls: Object.assign([...calls], { toJSON: () => [] }) },
      { role: 'assistant', content: null, tool_calls: calls, thinking: [{ text: 't' }] },
      Object.assign(Object.create(null), { role: 'tool', tool_call_id: 'call_1', content: 'x' }),
    ];
    for (const sample of odd) expect(messageJson(sample as ChatMessage)).toBe(JSON.stringify(sample));
  });

  it('reads each value once, as JSON.stringify does', () => {
    let reads = 0;
    const sample = {
      role: 'tool',
      tool_call_id: 'call_1',
      get content() {
        reads += 1;
        return `read ${reads}`;
      },
    };
    expect(messageJson(sample as unknown as ChatMessage)).toBe(
      '{"role":"tool","tool_call_id":"call_1","content":"read 1"}',
    );
    expect(reads).toBe(1);
  });
});
