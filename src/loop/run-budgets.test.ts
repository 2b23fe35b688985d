import { describe, expect, it } from 'vitest';
import { budgetStop, spentBudget } from './run-budgets.js';
import { createRunProgress } from './run-progress.js';
import { testRuntime } from './test-support/test-runtime.js';

describe('budgetStop / spentBudget', () => {
  it('names the step limit first, then tokens, then money', () => {
    const { runtime } = testRuntime({ limits: { maxSteps: 2, tokenBudget: 100 } });
    const progress = createRunProgress({ messages: [] });
    expect(budgetStop(runtime, progress)).toBeUndefined();
    progress.usage.inputTokens = 100;
    expect(budgetStop(runtime, progress)).toBe('token_budget');
    progress.steps = 2;
    expect(budgetStop(runtime, progress)).toBe('max_steps');
    expect(spentBudget(runtime, progress)).toBe('token_budget');
    runtime.control.dispose();
  });
});
