import { describe, expect, it } from 'vitest';
import { createRunProgress } from './run-progress.js';
import { settleBatch } from './settle-batch.js';
import { testRuntime, toolCall } from './test-support/test-runtime.js';

describe('settleBatch', () => {
  it('commits one answer per call and goes on', async () => {
    const { runtime, registry } = testRuntime();
    const progress = createRunProgress({ messages: [] });
    const stop = await settleBatch(
      runtime,
      progress,
      [toolCall('c1', 'query_order', { order_id: 'SO20260901' })],
      registry,
    );
    expect(stop).toBeUndefined();
    expect(progress.conversation).toMatchObject([{ role: 'tool', tool_call_id: 'c1' }]);
    runtime.control.dispose();
  });

  it('hands off to a person once a tool failed too often in a row', async () => {
    const { runtime, registry } = testRuntime();
    const progress = createRunProgress({ messages: [] });
    const bad = (id: string) => toolCall(id, 'query_order', { order_id: 'nope' });
    await settleBatch(runtime, progress, [bad('c1')], registry);
    expect(await settleBatch(runtime, progress, [bad('c2')], registry)).toBe('tool_failures');
    expect(progress.conversation.at(-1)).toMatchObject({ role: 'assistant' });
    expect(progress.lastText).toBe(runtime.texts.handoff());
    runtime.control.dispose();
  });
});
