import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../core/chat-message.js';
import type { Model } from '../models/model.js';
import { searchIndexFor } from './choose-tools.js';
import { routeTools } from './route-tools.js';
import { deskTools } from './test-support/desk-tools.js';
import { tokenizeForSearch } from './tokenize-for-search.js';

const { registry } = deskTools();
const names = registry.names;
const words = ['order', 'parcel', 'refund', 'cancel', 'meeting', 'invoice', 'card', 'file', 'ticket', 'person'];
const chinese = ['退款', '订单', '物流', '工单', '发票', '会议', '转人工', '地址'];

const query = fc
  .array(fc.oneof(fc.constantFrom(...words, ...chinese), fc.string({ maxLength: 12 })), { maxLength: 8 })
  .map((parts) => parts.join(' '));
/** Names the conversation called since the latest user message: mounted ones and made-up ones. */
const called = fc.uniqueArray(fc.oneof(fc.constantFrom(...names), fc.constantFrom('no_such_tool', 'rm_rf')), {
  maxLength: 4,
});
/** What a router model might say: valid lists, lists with strangers, prose, anything. */
const routerAnswer = fc.oneof(
  fc.uniqueArray(fc.constantFrom(...names), { maxLength: 10 }).map((list) => JSON.stringify(list)),
  fc.array(fc.oneof(fc.constantFrom(...names), fc.string()), { maxLength: 5 }).map((list) => JSON.stringify(list)),
  fc.string(),
  fc.json(),
);

function conversation(text: string, inUse: readonly string[]): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'user', content: text }];
  for (const [index, name] of inUse.entries()) {
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `c${index}`, type: 'function', function: { name, arguments: '{}' } }],
    });
    messages.push({ role: 'tool', tool_call_id: `c${index}`, content: '{}' });
  }
  return messages;
}

function saying(text: string): Model {
  return {
    name: 'small',
    generate: async () => ({
      message: { role: 'assistant', content: text },
      usage: { inputTokens: 1, outputTokens: 1 },
      finishReason: 'stop',
    }),
  };
}

function isSubsequence(part: readonly string[], whole: readonly string[]): boolean {
  let position = 0;
  for (const name of whole) if (name === part[position]) position += 1;
  return position === part.length;
}

describe('routeTools, for any request, tools in use, topK and router answer', () => {
  it('sends mounted tools only, in registry order, the tools in use always, and at most topK others', async () => {
    await fc.assert(
      fc.asyncProperty(
        query,
        called,
        fc.integer({ min: 0, max: 14 }),
        fc.option(routerAnswer, { nil: undefined }),
        fc.constantFrom('all' as const, 'kept' as const),
        async (text, inUse, topK, answer, onNoMatch) => {
          const messages = conversation(text, inUse);
          const options = { topK, onNoMatch, ...(answer === undefined ? {} : { model: saying(answer) }) };
          const step = await routeTools({ tools: registry, messages, options });
          const sent = step.tools.names;
          expect(isSubsequence(sent, names)).toBe(true);
          expect(step.tools.specs.map((spec) => spec.function.name)).toEqual(sent);
          for (const name of inUse) if (names.includes(name)) expect(sent).toContain(name);
          const others = sent.filter((name) => !inUse.includes(name));
          const everything =
            step.tools.routing.reason === 'all_fit' ||
            (step.tools.routing.reason === 'no_match' && onNoMatch === 'all');
          if (!everything) expect(others.length).toBeLessThanOrEqual(topK);
          expect(step.tools.routing.tools).toEqual(sent);
          // The same request routes the same way: the prompt prefix stays the same.
          const again = await routeTools({ tools: registry, messages, options });
          expect(again.tools.names).toEqual(sent);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('the search index, for any text', () => {
  it('never throws, scores only tools sharing a term, finite and best first', () => {
    const specs = registry.specs;
    fc.assert(
      fc.property(
        fc
          .array(
            fc.oneof(fc.constantFrom(...words, ...chinese, ...names), fc.string({ unit: 'binary', maxLength: 30 })),
            {
              maxLength: 8,
            },
          )
          .map((parts) => parts.join(' ')),
        fc.double(),
        (text, weight) => {
          const ranked = searchIndexFor(specs).search([{ text, weight }]);
          for (const [index, score] of ranked.entries()) {
            expect(Number.isFinite(score.score) && score.score > 0).toBe(true);
            if (index > 0)
              expect(score.score).toBeLessThanOrEqual(ranked[index - 1]?.score ?? Number.POSITIVE_INFINITY);
          }
          const terms = new Set(tokenizeForSearch(text));
          if (terms.size === 0 || !(weight > 0 && Number.isFinite(weight))) expect(ranked).toEqual([]);
        },
      ),
      { numRuns: 500 },
    );
  });
});
