import { describe, expect, it } from 'vitest';
import { sequenceModel } from '../loop/test-support/sequence-model.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { type CompressionRecord, ContextManager, isWriteToolIn } from './context-manager.js';
import { countConversationTokens } from './count-message-tokens.js';
import { summarizeWithModel } from './summarize-with-model.js';
import { buildConversation, isWriteTool } from './test-support/conversations.js';
import { TOOL_RESULT_CHARS } from './truncate-tool-result.js';

const longConversation = () =>
  buildConversation({
    system: 'You are the shop assistant.',
    turns: Array.from({ length: 6 }, (_, index) => ({
      user: `Question ${index}`,
      batches: [[{ tool: 'query_order', resultChars: 2000 }]],
      answer: `Answer ${index}`,
    })),
  });

describe('ContextManager', () => {
  it('sends the conversation as it is below the threshold, and does not count a trigger', async () => {
    const messages = longConversation();
    const context = new ContextManager({ windowTokens: 100_000, isWriteTool });
    const prepared = await context.prepare({ messages });
    expect(prepared.messages).toBe(messages);
    expect(prepared.compression).toBeUndefined();
    expect(context.triggers).toBe(0);
  });

  it('compresses above 70% of the window, to the target, and logs every trigger with its count', async () => {
    const messages = longConversation();
    const size = countConversationTokens({ messages });
    const records: CompressionRecord[] = [];
    const context = new ContextManager({
      windowTokens: Math.floor(size / 0.8),
      isWriteTool,
      onCompress: (record) => records.push(record),
    });
    expect(context.thresholdTokens).toBe(Math.floor(context.windowTokens * 0.7));
    const prepared = await context.prepare({ messages });
    await context.prepare({ messages });
    expect(context.triggers).toBe(2);
    expect(records.map((record) => record.trigger)).toEqual([1, 2]);
    expect(records[0]).toMatchObject({ stage: 'tool_output', fits: true, tokensBefore: size });
    expect(prepared.compression?.tokensAfter).toBeLessThanOrEqual(context.targetTokens);
    expect(prepared.estimatedTokens).toBe(countConversationTokens({ messages: prepared.messages }));
  });

  it('counts the tool definitions a request carries', async () => {
    const registry = new ToolRegistry().register(
      defineTool({
        name: 'query_order',
        description: 'Look up an order. Not for shipments: use track_shipment.',
        parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
        sideEffect: 'read',
        execute: () => ({}),
      }),
    );
    const context = new ContextManager({ windowTokens: 10_000, isWriteTool: isWriteToolIn(registry) });
    const messages = [{ role: 'user' as const, content: 'Hi' }];
    expect(context.countTokens({ messages, tools: registry.specs })).toBeGreaterThan(
      context.countTokens({ messages }) + 20,
    );
  });

  it('corrects its count with the input tokens the provider reports, so the threshold moves with it', async () => {
    const messages = longConversation();
    const size = countConversationTokens({ messages });
    const context = new ContextManager({ windowTokens: Math.floor(size / 0.6), isWriteTool });
    const first = await context.prepare({ messages });
    expect(first.compression).toBeUndefined();
    // The provider counts 30% more than the local tokenizer (another model family).
    context.observe({
      prepared: first,
      usage: { inputTokens: Math.round(first.estimatedTokens * 1.3), outputTokens: 5 },
    });
    expect(context.calibration.ratio).toBeCloseTo(1.3, 2);
    const second = await context.prepare({ messages });
    expect(second.compression).toBeDefined();
    expect(context.triggers).toBe(1);
  });

  it('summarises through the model when dropping is not enough, and returns the call usage for the budget', async () => {
    const messages = buildConversation({
      system: 'You are the shop assistant.',
      turns: [
        { user: 'x'.repeat(3000), batches: [], answer: 'Understood.' },
        { user: 'Now refund it', batches: [[{ tool: 'query_order', resultChars: 100 }]] },
      ],
    });
    const model = sequenceModel([{ role: 'assistant', content: 'The customer explained a long problem.' }], {
      usage: { inputTokens: 800, outputTokens: 9 },
    });
    const context = new ContextManager({
      windowTokens: 400,
      isWriteTool,
      summarize: summarizeWithModel({ model }),
    });
    const prepared = await context.prepare({ messages });
    expect(prepared.compression?.stage).toBe('summary');
    expect(prepared.usage).toEqual({ inputTokens: 800, outputTokens: 9 });
    expect(model.requests).toHaveLength(1);
    // The next step reuses the summary: no second call.
    const next = await context.prepare({ messages });
    expect(next.usage).toBeUndefined();
    expect(model.requests).toHaveLength(1);
  });

  it('truncates tool results with its limits', () => {
    const context = new ContextManager({ windowTokens: 1000, isWriteTool, truncation: { maxResultChars: 100 } });
    expect(context.truncateToolResult('z'.repeat(500))).toHaveLength(100);
    expect(new ContextManager({ windowTokens: 1000, isWriteTool }).truncateToolResult('z'.repeat(5000))).toHaveLength(
      TOOL_RESULT_CHARS,
    );
  });
});
