import { describe, expect, it } from 'vitest';
import { parseToolCall } from './parse-tool-call.js';
import { testRuntime, toolCall } from './test-support/test-runtime.js';

describe('parseToolCall', () => {
  it('returns the validated arguments without what the model sent for bound parameters', () => {
    const { runtime, registry } = testRuntime();
    const checked = parseToolCall(
      runtime,
      registry,
      toolCall('c1', 'query_order', { order_id: 'SO20260901', user_id: 'C9' }),
    );
    expect(checked).toMatchObject({ ok: true, args: { order_id: 'SO20260901' } });
  });

  it('reads a null as absent only for a model that decodes tools in strict mode', () => {
    const strict = testRuntime({ model: { name: 'strict', strictTools: true, generate: async () => never() } });
    const call = toolCall('c1', 'query_order', { order_id: 'SO20260901', note: null });
    expect(parseToolCall(strict.runtime, strict.registry, call)).toMatchObject({
      ok: true,
      args: { order_id: 'SO20260901' },
    });
    const loose = testRuntime();
    expect(parseToolCall(loose.runtime, loose.registry, call)).toMatchObject({ ok: false, error: { retryable: true } });
  });

  it("names the single issue's code, or invalid_arguments for several", () => {
    const { runtime, registry } = testRuntime();
    const one = parseToolCall(runtime, registry, toolCall('c1', 'query_order', { order_id: 'SO1' }));
    const two = parseToolCall(runtime, registry, toolCall('c2', 'query_order', { order_id: 'SO1', extra: 1 }));
    expect(one.ok ? undefined : one.error.code).not.toBe('invalid_arguments');
    expect(two.ok ? undefined : two.error.code).toBe('invalid_arguments');
    expect(two.ok ? [] : two.error.issues).toHaveLength(2);
  });

  it('answers an unknown tool with the names that exist', () => {
    const { runtime, registry } = testRuntime();
    const checked = parseToolCall(runtime, registry, toolCall('c1', 'query_orders', {}));
    expect(checked.ok ? '' : checked.error.message).toContain('query_order');
  });
});

function never(): never {
  throw new Error('not called');
}
