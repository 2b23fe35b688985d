import { describe, expect, it } from 'vitest';
import { FatalToolError } from '../errors/fatal-tool-error.js';
import { RetryableToolError } from '../errors/retryable-tool-error.js';
import { ToolTimeoutError } from '../errors/tool-timeout-error.js';
import type { GatedCall } from '../gate/gated-call.js';
import { gatedCallFixture } from '../gate/test-support/gated-call-fixture.js';
import type { ToolDefinition } from '../tools/tool-types.js';
import { executeToolCall } from './execute-tool-call.js';
import { testRuntime } from './test-support/test-runtime.js';

function callOf(tool: Partial<ToolDefinition<Record<string, unknown>, unknown>>): GatedCall {
  return gatedCallFixture({ tool }).call;
}

describe('executeToolCall', () => {
  it('returns the data as an ok outcome after tool:start', async () => {
    const { runtime, events } = testRuntime();
    expect(await executeToolCall(runtime, callOf({}))).toEqual({ ok: true, data: { refunded: true } });
    expect(events.map((event) => event.type)).toEqual(['tool:start']);
  });

  it('answers a tool that answers synchronously without a promise, and one that answers later with one', async () => {
    const { runtime } = testRuntime();
    expect(executeToolCall(runtime, callOf({ execute: () => ({ refunded: true }) }))).toEqual({
      ok: true,
      data: { refunded: true },
    });
    const refusing = callOf({
      execute: () => {
        throw new FatalToolError({ code: 'closed', message: 'The order is closed.' });
      },
    });
    expect(executeToolCall(runtime, refusing)).toMatchObject({
      ok: false,
      failure: 'model',
      error: { code: 'closed' },
    });
    const later = executeToolCall(runtime, callOf({ execute: async () => ({ refunded: true }) }));
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toEqual({ ok: true, data: { refunded: true } });
    const rejecting = executeToolCall(
      runtime,
      callOf({ execute: () => Promise.reject(new RetryableToolError({ code: 'busy', message: 'Try again.' })) }),
    );
    expect(await rejecting).toMatchObject({ ok: false, failure: 'model', error: { code: 'busy', retryable: true } });
  });

  it('classifies retryable and fatal tool errors for the model', async () => {
    const { runtime } = testRuntime();
    const retryable = callOf({
      execute: () => {
        throw new RetryableToolError({ code: 'busy', message: 'Try again.' });
      },
    });
    const fatal = callOf({
      execute: () => {
        throw new FatalToolError({ code: 'closed', message: 'The order is closed.' });
      },
    });
    expect(await executeToolCall(runtime, retryable)).toMatchObject({
      failure: 'model',
      error: { code: 'busy', retryable: true },
    });
    expect(await executeToolCall(runtime, fatal)).toMatchObject({
      failure: 'model',
      error: { code: 'closed', retryable: false },
    });
  });

  it('tells the model of a retry-safe timeout, and the operator of any other', async () => {
    const { runtime } = testRuntime({ toolTimeoutMs: 10 });
    const hang = () => new Promise<never>(() => {});
    expect(await executeToolCall(runtime, callOf({ execute: hang, retrySafe: true }))).toMatchObject({
      failure: 'model',
      error: { code: 'tool_timeout', retryable: true },
    });
    expect(await executeToolCall(runtime, callOf({ execute: hang }))).toMatchObject({
      failure: 'infrastructure',
      code: 'tool_timeout',
    });
  });

  it('leaves the time limit of a tool that enforces its timeoutMs to the tool: no timer, the signal unchanged', async () => {
    const { runtime } = testRuntime({ toolTimeoutMs: 5 });
    const signals: AbortSignal[] = [];
    const slow = callOf({
      timeoutMs: 10,
      enforcesTimeout: true,
      execute: async (_args, context) => {
        signals.push(context.signal);
        await new Promise((resolve) => setTimeout(resolve, 40));
        return 'late but kept';
      },
    });
    expect(await executeToolCall(runtime, slow)).toEqual({ ok: true, data: 'late but kept' });
    expect(signals).toEqual([slow.context.signal]);
    const timedOut = callOf({
      timeoutMs: 10,
      enforcesTimeout: true,
      retrySafe: true,
      execute: () => {
        throw new ToolTimeoutError({ toolName: 'apply_refund', timeoutMs: 10 });
      },
    });
    expect(await executeToolCall(runtime, timedOut)).toMatchObject({
      failure: 'model',
      error: {
        code: 'tool_timeout',
        retryable: true,
        message: 'apply_refund did not answer within 0.01 seconds. You can call it again.',
      },
    });
  });

  it("keeps the run's time limit itself for a tool that enforces one but sets no timeoutMs", async () => {
    const { runtime } = testRuntime({ toolTimeoutMs: 10 });
    const hang = () => new Promise<never>(() => {});
    expect(
      await executeToolCall(runtime, callOf({ execute: hang, enforcesTimeout: true, retrySafe: true })),
    ).toMatchObject({
      failure: 'model',
      error: { code: 'tool_timeout', retryable: true },
    });
  });

  it('reports anything else as an infrastructure failure, never throwing', async () => {
    const { runtime } = testRuntime();
    const broken = callOf({
      execute: () => {
        throw new TypeError('boom');
      },
    });
    expect(await executeToolCall(runtime, broken)).toMatchObject({
      failure: 'infrastructure',
      code: 'infrastructure_failure',
    });
  });
});
