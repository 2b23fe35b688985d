import { describe, expect, it } from 'vitest';
import { InfrastructureError } from '../errors/infrastructure-error.js';
import { failRun } from './fail-run.js';
import { createRunProgress } from './run-progress.js';
import { testRuntime } from './test-support/test-runtime.js';

describe('failRun', () => {
  it('emits run:error with the error code and carries the cause for the operator', async () => {
    const { runtime, events } = testRuntime();
    const cause = new InfrastructureError({ message: 'tool "x" failed unexpectedly', toolName: 'x' });
    const result = failRun(runtime, createRunProgress({ messages: [] }), cause);
    await new Promise((resolve) => setImmediate(resolve));
    expect(result).toMatchObject({ stopReason: 'error', error: { code: cause.code, cause } });
    expect(events.at(-1)).toMatchObject({ type: 'run:error', code: cause.code });
    expect(failRun(runtime, createRunProgress({ messages: [] }), 'odd').error?.code).toBe('internal_error');
    runtime.control.dispose();
  });
});
