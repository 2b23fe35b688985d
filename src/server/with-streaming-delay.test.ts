import { describe, expect, it } from 'vitest';
import type { Model } from '../models/model.js';
import { withStreamingDelay } from './with-streaming-delay.js';

const instant: Model = {
  name: 'instant',
  generate: async ({ onTextDelta }) => {
    onTextDelta?.('Hello ');
    onTextDelta?.('你好世界，这是一段没有空格的中文。');
    return {
      message: { role: 'assistant', content: 'x' },
      usage: { inputTokens: 1, outputTokens: 1 },
      finishReason: 'stop',
    };
  },
};

describe('withStreamingDelay', () => {
  it('hands out the same text in short fragments, spaced out, before answering', async () => {
    const model = withStreamingDelay(instant, { firstTokenMs: 30, deltaMs: 10, maxFragmentLength: 6 });
    const fragments: { text: string; at: number }[] = [];
    const startedAt = performance.now();
    const response = await model.generate({
      messages: [],
      tools: [],
      onTextDelta: (text) => fragments.push({ text, at: performance.now() - startedAt }),
    });
    expect(response.message.content).toBe('x');
    expect(fragments.map((fragment) => fragment.text)).toEqual([
      'Hello ',
      '你好世界，这',
      '是一段没有空',
      '格的中文。',
    ]);
    expect(fragments[0]?.at).toBeGreaterThanOrEqual(25);
    expect((fragments.at(-1)?.at ?? 0) - (fragments[0]?.at ?? 0)).toBeGreaterThanOrEqual(25);
  });

  it('stops waiting as soon as the run is aborted', async () => {
    const model = withStreamingDelay(instant, { firstTokenMs: 10_000 });
    const controller = new AbortController();
    const answer = model.generate({ messages: [], tools: [], signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(answer).rejects.toThrow('stop');
  });
});
