import { describe, expect, it, vi } from 'vitest';
import type { ChatMessage } from '../core/chat-message.js';
import { toolPairingProblems } from '../core/message-units.js';
import { calls, sequenceModel } from '../loop/test-support/sequence-model.js';
import { COMPRESSION_THRESHOLD, compressContext, type Summarize } from './compress-context.js';
import { countConversationTokens } from './count-message-tokens.js';
import { summarizeWithModel } from './summarize-with-model.js';
import { buildConversation, isWriteTool } from './test-support/conversations.js';

const conversation = () =>
  buildConversation({
    system: 'You are the shop assistant.',
    turns: [
      {
        user: 'Where is SO20260901?',
        batches: [
          [
            { tool: 'query_order', resultChars: 3000 },
            { tool: 'track_shipment', resultChars: 2000 },
          ],
        ],
        answer: 'It shipped yesterday.',
      },
      {
        user: 'Please leave a note for the courier.',
        batches: [
          [
            { tool: 'save_note', resultChars: 200 },
            { tool: 'query_order', resultChars: 2000 },
          ],
        ],
        answer: 'Noted.',
      },
      { user: 'And SO20260902?', batches: [[{ tool: 'query_order', resultChars: 3000 }]], answer: 'Delivered.' },
      {
        user: 'Refund SO20260902, not as store credit.',
        batches: [[{ tool: 'query_order', resultChars: 2500 }], [{ tool: 'query_refund', resultChars: 1500 }]],
      },
    ],
  });

const fakeSummary: Summarize = async ({ messages }) => ({
  text: `The customer asked about two orders (${messages.length} messages).`,
  usage: { inputTokens: 120, outputTokens: 15 },
});

const tokens = (messages: readonly ChatMessage[]) => countConversationTokens({ messages });
const pinned = { slots: { order_id: 'SO20260902' }, refused: ['store credit'], unfinished: ['refund SO20260902'] };

describe('compressContext', () => {
  it('keeps a conversation that fits as it is', async () => {
    const messages = conversation();
    const result = await compressContext({ messages, targetTokens: tokens(messages), isWriteTool });
    expect(result.stage).toBe('none');
    expect(result.messages).toBe(messages);
  });

  it('replaces old read outputs first, oldest first, and stops as soon as it fits', async () => {
    const messages = conversation();
    const result = await compressContext({ messages, targetTokens: Math.floor(tokens(messages) * 0.8), isWriteTool });
    expect(result.stage).toBe('tool_output');
    expect(result.fits).toBe(true);
    expect(result.removedMessages).toBe(0);
    const stubbed = result.messages.filter(
      (message) => message.role === 'tool' && message.content.startsWith('[Output'),
    );
    expect(stubbed.map((message) => message.role === 'tool' && message.tool_call_id)).toEqual([
      'call_0_0_0',
      'call_0_0_1',
    ]);
    expect(stubbed[0]?.content).toMatchInlineSnapshot(
      `"[Output of query_order removed to save context (2999 characters). Call query_order again if you need it.]"`,
    );
  });

  it('then drops middle turns, keeping write results verbatim and the current turn whole', async () => {
    const messages = conversation();
    const result = await compressContext({ messages, targetTokens: 800, isWriteTool, pinned });
    expect(result.stage).toBe('middle_turns');
    expect(result.fits).toBe(true);
    const texts = result.messages.map((message) => message.content);
    expect(texts).not.toContain('And SO20260902?');
    expect(texts).toContain('Where is SO20260901?');
    expect(texts).toContain('Refund SO20260902, not as store credit.');
    const note = messages.find((message) => message.role === 'tool' && message.tool_call_id === 'call_1_0_0');
    expect(result.messages).toContainEqual(note);
    expect(result.messages.at(-1)).toEqual(messages.at(-1));
    expect(result.messages[1]?.content).toMatchInlineSnapshot(`
      "Session state, kept verbatim through compression:
      Confirmed parameters: {"order_id":"SO20260902"}
      The user refused: store credit
      Unfinished steps: refund SO20260902"
    `);
    expect(
      result.messages.find((message) => message.content?.includes('earlier messages'))?.content,
    ).toMatchInlineSnapshot(
      `"[8 earlier messages were removed to fit the context window. Results of actions that changed something are kept below, verbatim.]"`,
    );
    expect(toolPairingProblems(result.messages)).toEqual([]);
  });

  it('summarises the earlier turns last, with a model call whose usage it returns', async () => {
    const messages = conversation();
    const summarize = vi.fn(fakeSummary);
    const result = await compressContext({ messages, targetTokens: 700, isWriteTool, pinned, summarize });
    expect(result.stage).toBe('summary');
    expect(result.fits).toBe(true);
    expect(result.usage).toEqual({ inputTokens: 120, outputTokens: 15 });
    expect(summarize).toHaveBeenCalledTimes(1);
    expect(result.messages.map((message) => message.role)).toEqual([
      'system',
      'system',
      'system',
      'assistant',
      'tool',
      'tool',
      'user',
      'system',
      'assistant',
      'tool',
    ]);
    expect(result.messages[2]?.content).toMatch(/^Summary of the earlier conversation:\nThe customer asked/);
    expect(toolPairingProblems(result.messages)).toEqual([]);
  });

  it('reuses a summary that still covers the same turns instead of calling the model again', async () => {
    const messages = conversation();
    const first = await compressContext({ messages, targetTokens: 700, isWriteTool, pinned, summarize: fakeSummary });
    const summarize = vi.fn(fakeSummary);
    const again = await compressContext({
      messages,
      targetTokens: 700,
      isWriteTool,
      pinned,
      summarize,
      ...(first.summary === undefined ? {} : { previousSummary: first.summary }),
    });
    expect(summarize).not.toHaveBeenCalled();
    expect(again.usage).toBeUndefined();
    expect(again.messages).toEqual(first.messages);
  });

  it('says it does not fit when what must stay verbatim is over the target', async () => {
    const messages = conversation();
    const result = await compressContext({ messages, targetTokens: 50, isWriteTool, summarize: fakeSummary });
    expect(result.fits).toBe(false);
    expect(toolPairingProblems(result.messages)).toEqual([]);
    expect(result.messages.at(-1)).toEqual(messages.at(-1));
  });

  it('keeps an assistant message whose calls are not all answered yet, with its answers so far', async () => {
    const messages = buildConversation({
      system: 'You help.',
      turns: [
        { user: 'One', batches: [[{ tool: 'query_order', resultChars: 4000 }]], answer: 'Ok.' },
        {
          user: 'Two',
          batches: [
            [
              { tool: 'query_order', resultChars: 900 },
              { tool: 'query_refund', resultChars: 900 },
            ],
          ],
          unanswered: 1,
        },
      ],
    });
    const result = await compressContext({ messages, targetTokens: 400, isWriteTool });
    expect(result.messages.slice(-2)).toEqual(messages.slice(-2));
    expect(toolPairingProblems(result.messages)).toEqual([]);
  });

  it('uses 0.7 of the window as its threshold constant', () => {
    expect(COMPRESSION_THRESHOLD).toBe(0.7);
  });
});

describe('summarizeWithModel', () => {
  it('sends the earlier turns as one transcript with no tools, and returns the text and usage', async () => {
    const model = sequenceModel([{ role: 'assistant', content: ' The customer wants SO20260902 refunded. ' }], {
      usage: { inputTokens: 300, outputTokens: 12 },
    });
    const summarize = summarizeWithModel({ model });
    const result = await summarize({
      messages: [{ role: 'user', content: 'Refund SO20260902' }, calls(['query_order', { order_id: 'SO20260902' }])],
      previous: 'Earlier: asked about SO20260901.',
    });
    expect(result).toEqual({
      text: 'The customer wants SO20260902 refunded.',
      usage: { inputTokens: 300, outputTokens: 12 },
    });
    const request = model.requests[0];
    expect(request?.tools).toEqual([]);
    expect(request?.messages[1]?.content).toMatch(
      /^\[earlier summary\] Earlier: asked about SO20260901\.\n\[user\] Refund SO20260902\n\[assistant calls query_order call_\d+\] \{"order_id":"SO20260902"\}$/,
    );
  });
});
