import { describe, expect, it } from 'vitest';
import { runToolCall } from './run-tool-call.js';
import { testRuntime, toolCall } from './test-support/test-runtime.js';

const call = toolCall('c1', 'query_order', { order_id: 'SO20260901' });

describe('runToolCall', () => {
  it('runs an allowed call through every step and answers with its result', async () => {
    const { runtime, registry, executed } = testRuntime();
    const report = await runToolCall(runtime, registry, call, 1, 'run');
    expect(report).toMatchObject({ kind: 'done', content: '{"order_id":"SO20260901","status":"shipped"}' });
    expect(executed).toEqual([{ order_id: 'SO20260901', tenant_id: 'shop', user_id: 'C1001' }]);
  });

  it('checks but does not run a call in check_only mode', async () => {
    const { runtime, registry, executed } = testRuntime();
    expect(await runToolCall(runtime, registry, call, 1, 'check_only')).toEqual({
      kind: 'held',
      toolCallId: 'c1',
      tool: 'query_order',
    });
    expect(executed).toEqual([]);
  });

  it('refuses the same call once too often', async () => {
    const { runtime, registry } = testRuntime({ limits: { maxIdenticalCalls: 1 } });
    await runToolCall(runtime, registry, call, 1, 'run');
    expect(await runToolCall(runtime, registry, { ...call, id: 'c2' }, 2, 'run')).toMatchObject({
      brake: 'repeated_call',
    });
  });

  it('answers a denied call without running it', async () => {
    const { runtime, registry, executed } = testRuntime({
      gate: {
        check: () => ({ decision: 'deny', rule: 'closed', code: 'shop_closed', message: 'The shop is closed.' }),
      },
    });
    expect(await runToolCall(runtime, registry, call, 1, 'run')).toMatchObject({
      kind: 'done',
      outcome: { ok: false, error: { code: 'shop_closed' } },
    });
    expect(executed).toEqual([]);
  });

  it('reports a call whose every step answers at once without a promise, and rejects (never throws) on a failure', async () => {
    const { runtime, registry, executed } = testRuntime();
    const report = runToolCall(runtime, registry, call, 1, 'run');
    expect(report).not.toBeInstanceOf(Promise);
    expect(report).toMatchObject({ kind: 'done', content: '{"order_id":"SO20260901","status":"shipped"}' });
    expect(executed).toHaveLength(1);
    const broken = testRuntime({
      gate: {
        check: () => {
          throw new Error('the rules cannot be read');
        },
      },
    });
    const failing = runToolCall(broken.runtime, broken.registry, { ...call, id: 'c2' }, 1, 'run');
    expect(failing).toBeInstanceOf(Promise);
    await expect(failing).rejects.toThrow('the rules cannot be read');
    expect(broken.executed).toEqual([]);
  });
});
