import { describe, expect, it } from 'vitest';
import { createRunProgress } from './run-progress.js';
import { totalUsage } from './total-usage.js';

describe('totalUsage', () => {
  it('adds input and output tokens up', () => {
    const progress = createRunProgress({ messages: [] });
    progress.usage.inputTokens = 7;
    progress.usage.outputTokens = 3;
    expect(totalUsage(progress)).toEqual({ inputTokens: 7, outputTokens: 3, cachedInputTokens: 0, totalTokens: 10 });
  });
});
