import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../core/chat-message.js';
import { countConversationTokens } from './count-message-tokens.js';
import { createMessageCounter } from './create-message-counter.js';

const message: fc.Arbitrary<ChatMessage> = fc.oneof(
  fc.record({ role: fc.constant('user' as const), content: fc.string({ maxLength: 80 }) }),
  fc.record({ role: fc.constant('system' as const), content: fc.string({ maxLength: 80 }) }),
  fc.record({
    role: fc.constant('tool' as const),
    tool_call_id: fc.string({ minLength: 1, maxLength: 12 }),
    content: fc.string({ maxLength: 200 }),
  }),
);

type Operation =
  | { readonly kind: 'push'; readonly messages: readonly ChatMessage[] }
  | { readonly kind: 'pop' }
  | { readonly kind: 'replace_last' | 'replace_first'; readonly message: ChatMessage }
  | { readonly kind: 'copy' };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant('push' as const), messages: fc.array(message, { maxLength: 3 }) }),
  fc.record({ kind: fc.constant('pop' as const) }),
  fc.record({ kind: fc.constantFrom('replace_last' as const, 'replace_first' as const), message }),
  fc.record({ kind: fc.constant('copy' as const) }),
);

describe('createMessageCounter', () => {
  it('counts exactly what countConversationTokens counts while the array grows, shrinks, is copied or its ends change', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 30 }), (operations) => {
        const count = createMessageCounter();
        let conversation: ChatMessage[] = [];
        for (const step of operations) {
          if (step.kind === 'push') conversation.push(...step.messages);
          else if (step.kind === 'pop') conversation.pop();
          else if (step.kind === 'copy') conversation = [...conversation];
          else if (conversation.length > 0) {
            conversation[step.kind === 'replace_last' ? conversation.length - 1 : 0] = step.message;
          }
          expect(count(conversation)).toBe(countConversationTokens({ messages: conversation }));
        }
      }),
    );
  });

  it('reads only the ends and the appended messages of an array it counted before', () => {
    const conversation: ChatMessage[] = Array.from({ length: 1000 }, (_, index) => ({
      role: 'user',
      content: `message ${index}`,
    }));
    const reads: number[] = [];
    const watched = new Proxy(conversation, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads.push(Number(key));
        return Reflect.get(target, key, receiver);
      },
    });
    const count = createMessageCounter();
    count(watched);
    reads.length = 0;
    watched.push({ role: 'assistant', content: 'It ships tomorrow.' });
    reads.length = 0;
    expect(count(watched)).toBe(countConversationTokens({ messages: conversation }));
    expect(reads).toEqual([0, 999, 1000, 0, 1000]);
  });
});
