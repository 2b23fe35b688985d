import { describe, expect, it } from 'vitest';
import type { AgentEvent, AgentEventBody } from '../events/agent-event.js';
import { createProgressCollector } from './progress-collector.js';

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

function stream(bodies: readonly AgentEventBody[]): AgentEvent[] {
  return bodies.map((body, index) => ({ ...body, runId: 'r1', seq: index + 1, at: 0 }) as AgentEvent);
}

describe('createProgressCollector', () => {
  it('keeps each progress line with its tool call until the transcript asks for it', async () => {
    const progress = createProgressCollector({ locale: 'zh-CN' });
    for (const event of stream([
      { type: 'run:start', sessionId: undefined, model: 'm' },
      {
        type: 'tool:error',
        step: 1,
        toolCallId: 'c1',
        tool: 'query_order',
        stage: 'validation',
        code: 'invalid_type',
        retryable: true,
        durationMs: 0,
      },
      { type: 'tool:start', step: 2, toolCallId: 'c2', tool: 'query_order' },
      { type: 'tool:end', step: 2, toolCallId: 'c2', tool: 'query_order', durationMs: 2 },
      { type: 'run:error', code: 'model_unavailable', message: 'down', steps: 2, usage },
      { type: 'run:end', stopReason: 'error', steps: 2, usage, durationMs: 9 },
    ]))
      progress.listener(event);
    await progress.close();
    expect(progress.take('c2')).toEqual(['  › 正在查询订单…']);
    expect(progress.take('c2')).toEqual([]);
    expect(progress.take('c3')).toEqual([]);
    expect(progress.takeRest()).toEqual([expect.stringMatching(/^ {2}› \S/), '  › 正在修正请求…']);
    expect(progress.takeRest()).toEqual([]);
  });
});
