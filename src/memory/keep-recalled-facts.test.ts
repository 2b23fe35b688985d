import { describe, expect, it } from 'vitest';
import { compressContext } from '../context/compress-context.js';
import { countConversationTokens } from '../context/count-message-tokens.js';
import { buildConversation, isWriteTool } from '../context/test-support/conversations.js';
import { keepRecalledFacts } from './keep-recalled-facts.js';

const conversation = () =>
  buildConversation({
    system: 'You are the shop assistant.',
    turns: [
      {
        user: 'What do you remember about my drinks?',
        batches: [[{ tool: 'recall_facts', resultChars: 600 }]],
        answer: 'Green tea, no sugar.',
      },
      { user: 'Where is SO20260901?', batches: [[{ tool: 'query_order', resultChars: 3000 }]], answer: 'Shipped.' },
      { user: 'And SO20260902?', batches: [[{ tool: 'query_order', resultChars: 3000 }]], answer: 'Delivered.' },
      { user: 'Refund SO20260902.', batches: [[{ tool: 'query_refund', resultChars: 2500 }]] },
    ],
  });

describe('keepRecalledFacts', () => {
  it('keeps recall_facts results verbatim through every compression stage, where plain reads are stubbed or dropped', async () => {
    const messages = conversation();
    const recalledResult = messages.find((message) => message.role === 'tool' && message.tool_call_id === 'call_0_0_0');
    const total = countConversationTokens({ messages });
    const summarize = async () => ({ text: 'Orders were discussed.', usage: { inputTokens: 1, outputTokens: 1 } });
    for (const share of [0.7, 0.4, 0.2]) {
      const targetTokens = Math.floor(total * share);
      const kept = await compressContext({
        messages,
        targetTokens,
        isWriteTool: keepRecalledFacts(isWriteTool),
        summarize,
      });
      expect(kept.stage).not.toBe('none');
      expect(kept.messages).toContainEqual(recalledResult);
      const plain = await compressContext({ messages, targetTokens, isWriteTool, summarize });
      expect(plain.messages).not.toContainEqual(recalledResult);
    }
  });

  it('still answers the wrapped predicate for every other tool', () => {
    const wrapped = keepRecalledFacts(isWriteTool);
    expect(['recall_facts', 'save_note', 'query_order'].map(wrapped)).toEqual([true, true, false]);
  });
});
