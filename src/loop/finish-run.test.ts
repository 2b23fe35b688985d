import { describe, expect, it } from 'vitest';
import { finishRun } from './finish-run.js';
import { createRunProgress } from './run-progress.js';
import { testRuntime } from './test-support/test-runtime.js';

describe('finishRun', () => {
  it('emits run:end with the stop reason and returns the result', async () => {
    const { runtime, events } = testRuntime();
    const result = await finishRun(runtime, createRunProgress({ messages: [] }), 'max_steps');
    await new Promise((resolve) => setImmediate(resolve));
    expect(result.stopReason).toBe('max_steps');
    expect(events.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'max_steps', steps: 0 });
    expect(events.at(-1)).not.toHaveProperty('cost');
    runtime.control.dispose();
  });
});
