import { describe, expect, it } from 'vitest';
import { reportFailure, reportRefusal, reportRepeatedCall } from './report-tool-error.js';
import { testRuntime } from './test-support/test-runtime.js';

const head = { step: 1, toolCallId: 'c1', toolName: 'query_order', startedAt: 0 };
const error = { code: 'not_found', retryable: false, message: 'No such order.' };

describe('reportFailure / reportRefusal', () => {
  it('counts a failure toward the brake and trips tool_failures on the second in a row', async () => {
    const { runtime, events } = testRuntime();
    expect(reportFailure(runtime, head, 'execution', error)).not.toHaveProperty('brake');
    expect(reportFailure(runtime, head, 'execution', error)).toMatchObject({ kind: 'done', brake: 'tool_failures' });
    // Listeners run after the producer's synchronous work.
    await new Promise((resolve) => setImmediate(resolve));
    expect(events.filter((event) => event.type === 'tool:error')).toHaveLength(2);
  });

  it('never counts a refusal, and words both with the run’s describeError', () => {
    const { runtime } = testRuntime({ describeError: (failure) => `described ${failure.code}` });
    reportRefusal(runtime, head, 'gate', error);
    const report = reportRefusal(runtime, head, 'gate', error);
    expect(report).toEqual({
      kind: 'done',
      toolCallId: 'c1',
      tool: 'query_order',
      outcome: { ok: false, error },
      content: 'described not_found',
    });
  });

  it('stops the run on a repeated call', () => {
    const { runtime } = testRuntime();
    expect(reportRepeatedCall(runtime, head, 3)).toMatchObject({
      brake: 'repeated_call',
      outcome: { error: { code: 'repeated_call' } },
    });
  });
});
