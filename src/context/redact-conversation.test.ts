import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../core/chat-message.js';
import { redactConversation } from './redact-conversation.js';

const messages: ChatMessage[] = [
  { role: 'user', content: 'Where is SO20260901? Call me on +86 138 0000 1234.' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'c1', type: 'function', function: { name: 'query_order', arguments: '{"order_id":"SO20260901"}' } },
    ],
  },
  {
    role: 'tool',
    tool_call_id: 'c1',
    content: JSON.stringify({
      order_id: 'SO20260901',
      recipient_phone: '+86 138 0000 1234',
      shipping_address: '1 Road, Shanghai',
    }),
  },
  { role: 'assistant', content: 'It goes to 1 Road, Shanghai; the courier will call +86 138 0000 1234.' },
];

describe('redactConversation', () => {
  it("blanks a tool's sensitive fields and the same values wherever they appear in text", () => {
    const redacted = redactConversation({
      messages,
      sensitiveFields: (tool) => (tool === 'query_order' ? ['recipient_phone', 'shipping_address'] : []),
    });
    expect(redacted.map((message) => message.content)).toMatchInlineSnapshot(`
      [
        "Where is SO20260901? Call me on [redacted].",
        null,
        "{"order_id":"SO20260901","recipient_phone":"[redacted]","shipping_address":"[redacted]"}",
        "It goes to [redacted]; the courier will call [redacted].",
      ]
    `);
    expect(messages[2]?.content).toContain('+86 138 0000 1234');
  });

  it("blanks the values in a model's thinking too, which an AI SDK provider keeps on the message", () => {
    const thinking: ChatMessage[] = [
      ...messages.slice(0, 3),
      {
        role: 'assistant',
        content: 'It is on its way.',
        thinking: [
          {
            text: 'The phone is +86 138 0000 1234; do not repeat it.',
            provider_metadata: { anthropic: { signature: 'sig-1' } },
          },
        ],
      },
    ];
    const [, , , last] = redactConversation({
      messages: thinking,
      sensitiveFields: (tool) => (tool === 'query_order' ? ['recipient_phone'] : []),
    });
    expect(last?.role === 'assistant' && last.thinking).toEqual([
      { text: 'The phone is [redacted]; do not repeat it.', provider_metadata: { anthropic: { signature: 'sig-1' } } },
    ]);
  });

  it('redacts fields named for every tool, in arguments too', () => {
    const redacted = redactConversation({ messages, fields: ['order_id'] });
    const call = redacted[1];
    expect(call?.role === 'assistant' && call.tool_calls?.[0]?.function.arguments).toBe('{"order_id":"[redacted]"}');
    expect(redacted[0]?.content).toBe('Where is [redacted]? Call me on +86 138 0000 1234.');
  });
});
