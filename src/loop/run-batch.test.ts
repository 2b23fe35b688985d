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

describe('runBatch and the journal', () => {
  it('marks the results and the batch rerunnable only when every call of the batch is a read', async () => {
    const recorded: { toolCallId: string; rerunnable?: boolean }[] = [];
    const journal = {
      findToolResult: () => undefined,
      recordToolResult: (_runId: string, result: { toolCallId: string; rerunnable?: boolean }) => {
        recorded.push({ toolCallId: result.toolCallId, ...(result.rerunnable ? { rerunnable: true } : {}) });
      },
      commitStep: () => {},
    };
    const { runtime, registry } = testRuntime({ journal });
    const reads = await runBatch(
      runtime,
      registry,
      [toolCall('c1', 'query_order', { order_id: 'SO20260901' }), toolCall('c2', 'query_order', { order_id: 'x' })],
      1,
    );
    expect(reads.rerunnable).toBe(true);
    // Reads run concurrently: the invalid one is answered first.
    expect(recorded.sort((left, right) => left.toolCallId.localeCompare(right.toolCallId))).toEqual([
      { toolCallId: 'c1', rerunnable: true },
      { toolCallId: 'c2', rerunnable: true },
    ]);
    runtime.control.dispose();

    recorded.length = 0;
    const write = {
      ...registry.get('query_order')?.definition,
      name: 'cancel_order',
      description: 'Cancel one order.',
      sideEffect: 'reversible' as const,
    };
    const mixed = testRuntime({ journal });
    mixed.registry.register(write as Parameters<typeof mixed.registry.register>[0]);
    const batch = await runBatch(
      mixed.runtime,
      mixed.registry,
      [
        toolCall('c3', 'query_order', { order_id: 'SO20260901' }),
        toolCall('c4', 'cancel_order', { order_id: 'SO20260901' }),
      ],
      1,
    );
    expect(batch.rerunnable).toBe(false);
    expect(recorded.map((entry) => entry.rerunnable ?? false)).toEqual([false, false]);
    mixed.runtime.control.dispose();
  });
});
