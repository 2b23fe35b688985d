import { describe, expect, it } from 'vitest';
import { InfrastructureError } from '../errors/infrastructure-error.js';
import { gatedCallFixture } from '../gate/test-support/gated-call-fixture.js';
import { settleToolCall } from './settle-tool-call.js';
import { testRuntime } from './test-support/test-runtime.js';

function claim(log: string[]) {
  return {
    status: 'claimed' as const,
    complete: () => void log.push('complete'),
    release: () => void log.push('release'),
    abandon: () => void log.push('abandon'),
  };
}

describe('settleToolCall', () => {
  it('completes the claim, audits ok and answers with the data as JSON', async () => {
    const { runtime } = testRuntime();
    const { call } = gatedCallFixture();
    const log: string[] = [];
    const report = await settleToolCall(runtime, call, claim(log), { ok: true, data: { refunded: true } });
    expect(report).toMatchObject({ kind: 'done', content: '{"refunded":true}' });
    expect(log).toEqual(['complete']);
  });

  it('releases the key of a tool that refused, and abandons the key of one stopped mid-run', async () => {
    const { runtime } = testRuntime();
    const log: string[] = [];
    const error = { code: 'closed', retryable: false, message: 'Closed.' };
    await settleToolCall(runtime, gatedCallFixture().call, claim(log), { ok: false, failure: 'model', error });
    const aborted = await settleToolCall(runtime, gatedCallFixture().call, claim(log), {
      ok: false,
      failure: 'aborted',
    });
    expect(log).toEqual(['release', 'abandon']);
    expect(aborted).toMatchObject({ kind: 'aborted', started: true });
  });

  it('throws an InfrastructureError after abandoning the key and closing tool:start', async () => {
    const { runtime, events } = testRuntime();
    const log: string[] = [];
    const failing = settleToolCall(runtime, gatedCallFixture().call, claim(log), {
      ok: false,
      failure: 'infrastructure',
      code: 'infrastructure_failure',
      cause: new Error('disk'),
    });
    await expect(failing).rejects.toSatisfy((error) => InfrastructureError.isInstance(error));
    expect(log).toEqual(['abandon']);
    expect(events.at(-1)).toMatchObject({ type: 'tool:error', code: 'infrastructure_failure' });
  });
});
