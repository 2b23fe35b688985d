import { describe, expect, it } from 'vitest';
import { createRunProgress } from './run-progress.js';
import { runResult } from './run-result.js';
import { testRuntime } from './test-support/test-runtime.js';

describe('runResult', () => {
  it('returns only what this run appended as newMessages, and no cost without prices', () => {
    const { runtime } = testRuntime();
    const progress = createRunProgress({ messages: [{ role: 'user', content: 'Hi' }] });
    progress.conversation.push({ role: 'assistant', content: 'Hello.' });
    progress.lastText = 'Hello.';
    expect(runResult(runtime, progress, 'completed', 5)).toMatchObject({
      runId: 'run_test',
      stopReason: 'completed',
      text: 'Hello.',
      newMessages: [{ role: 'assistant', content: 'Hello.' }],
      durationMs: 5,
      cost: undefined,
    });
    runtime.control.dispose();
  });
});
