import { describe, expect, it } from 'vitest';
import { runBatch } from './run-batch.js';
import { testRuntime, toolCall } from './test-support/test-runtime.js';

describe('runBatch', () => {
  it('answers every call in order and records each result in the journal', async () => {
    const { runtime, registry } = testRuntime();
    const calls = [
      toolCall('c1', 'query_order', { order_id: 'SO20260901' }),
      toolCall('c2', 'query_order', { order_id: 'bad' }),
    ];
    const batch = await runBatch(runtime, registry, calls, 1);
    expect(batch.stop).toBeUndefined();
    expect(batch.messages.map((message) => message.tool_call_id)).toEqual(['c1', 'c2']);
    expect(await runtime.journal.findToolResult('run_test', 'c2')).toMatchObject({ outcome: { ok: false } });
    runtime.control.dispose();
  });

  it('does not run a call whose result the journal already holds', async () => {
    const { runtime, registry, executed } = testRuntime();
    await runtime.journal.recordToolResult('run_test', {
      toolCallId: 'c1',
      tool: 'query_order',
      content: '"recorded"',
      outcome: { ok: true, data: 'recorded' },
    });
    const batch = await runBatch(runtime, registry, [toolCall('c1', 'query_order', { order_id: 'SO20260901' })], 1);
    expect(batch.messages[0]?.content).toBe('"recorded"');
    expect(executed).toEqual([]);
    runtime.control.dispose();
  });
});
