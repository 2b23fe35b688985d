import { describe, expect, it } from 'vitest';
import { FatalToolError } from '../errors/fatal-tool-error.js';
import { RetryableToolError } from '../errors/retryable-tool-error.js';
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
