import { describe, expect, it } from 'vitest';
import { createRunProgress } from './run-progress.js';
import { calls } from './test-support/sequence-model.js';

describe('createRunProgress', () => {
  it('continues a resumed run’s counters and knows the conversation’s call ids', () => {
    const turn = calls(['query_order', { order_id: 'SO20260901' }]);
    const progress = createRunProgress({
      messages: [{ role: 'user', content: 'Hi' }, turn],
      resume: { steps: 3, usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 }, cost: 0.5 },
    });
    expect(progress).toMatchObject({ firstNew: 2, steps: 3, cost: 0.5, lastText: undefined });
    expect(progress.usage).toEqual({ inputTokens: 10, outputTokens: 5, cachedInputTokens: 0 });
    expect([...progress.callIds]).toEqual([turn.tool_calls?.[0]?.id]);
  });
});
