import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../tools/tool-registry.js';
import { createRunProgress } from './run-progress.js';
import { takeModelTurn } from './take-model-turn.js';
import { calls, sequenceModel } from './test-support/sequence-model.js';
import { testRuntime } from './test-support/test-runtime.js';

describe('takeModelTurn', () => {
  it('adds the usage, commits the message and keeps the last text', async () => {
    const model = sequenceModel([{ role: 'assistant', content: 'Shipped.' }]);
    const { runtime } = testRuntime({ model });
    const progress = createRunProgress({ messages: [{ role: 'user', content: 'Hi' }] });
    progress.steps = 1;
    const response = await takeModelTurn(runtime, progress, new ToolRegistry());
    expect(response.message.content).toBe('Shipped.');
    expect(progress.usage).toEqual({ inputTokens: 10, outputTokens: 5, cachedInputTokens: 0 });
    expect(progress.conversation).toHaveLength(2);
    expect(progress.lastText).toBe('Shipped.');
    runtime.control.dispose();
  });

  it('renames a tool call id the conversation already has', async () => {
    const turn = calls(['query_order', {}]);
    const model = sequenceModel([turn]);
    const { runtime } = testRuntime({ model });
    const progress = createRunProgress({ messages: [turn] });
    const response = await takeModelTurn(runtime, progress, new ToolRegistry());
    expect(response.message.tool_calls?.[0]?.id).not.toBe(turn.tool_calls?.[0]?.id);
    runtime.control.dispose();
  });
});
