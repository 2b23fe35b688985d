import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors/configuration-error.js';
import { denyAllApprovals } from '../gate/approval-broker.js';
import { allowAllGate } from '../gate/tool-gate.js';
import { describeFullError } from './describe-tool-error.js';
import { createRunRuntime } from './run-runtime.js';
import { testRuntime } from './test-support/test-runtime.js';

describe('createRunRuntime', () => {
  it('fills the defaults once per run', () => {
    const { runtime } = testRuntime();
    expect(runtime).toMatchObject({
      runId: 'run_test',
      gate: allowAllGate,
      approvals: denyAllApprovals,
      describeError: describeFullError,
      nulls: 'as_sent',
      maxParallelReads: 4,
      maxSteps: 10,
      locale: 'en',
    });
    expect(runtime.brakes.maxIdenticalCalls).toBe(2);
    expect(runtime.signal).toBe(runtime.control.signal);
    runtime.control.dispose();
  });

  it('refuses a cost budget without a price table', () => {
    const { options } = testRuntime();
    expect(() => createRunRuntime({ ...options, limits: { costBudget: 1 } }, 'run_1')).toThrow(ConfigurationError);
  });
});
