import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../core/chat-message.js';
import type { ToolSpec } from '../core/tool-spec.js';
import { prefixFingerprint } from './stable-prefix.js';

const queryOrder: ToolSpec = {
  type: 'function',
  function: {
    name: 'query_order',
    description: 'Look up one order.',
    parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
  },
};
const system: ChatMessage = { role: 'system', content: 'You are the shop assistant.' };

describe('prefixFingerprint', () => {
  it('stays the same while only the conversation after the system prompt grows', () => {
    const first = prefixFingerprint({ messages: [system, { role: 'user', content: 'hi' }], tools: [queryOrder] });
    const later = prefixFingerprint({
      messages: [system, { role: 'user', content: 'hi' }, { role: 'assistant', content: 'Hello!' }],
      tools: [queryOrder],
    });
    expect(later).toBe(first);
    expect(first).toMatch(/^[0-9a-f]{16}$/);
  });

  it('changes when the system prompt, the tool order or a key order changes the bytes sent', () => {
    const base = prefixFingerprint({ messages: [system], tools: [queryOrder] });
    const reordered: ToolSpec = {
      type: 'function',
      function: { description: 'Look up one order.', name: 'query_order', parameters: queryOrder.function.parameters },
    };
    expect(
      prefixFingerprint({ messages: [{ role: 'system', content: 'Today is Monday.' }], tools: [queryOrder] }),
    ).not.toBe(base);
    expect(prefixFingerprint({ messages: [system], tools: [reordered] })).not.toBe(base);
  });
});
