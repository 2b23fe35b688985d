import { describe, expect, it } from 'vitest';
import { type SessionRow, toSession, toSummary } from './session-rows.js';

function row(overrides: Partial<SessionRow> = {}): SessionRow {
  return {
    session_id: 's1',
    tenant_id: 'shop',
    user_id: null,
    status: 'running',
    active_run_id: 'run-1',
    run_steps: 3,
    run_input_tokens: 30,
    run_output_tokens: 15,
    run_cached_tokens: 4,
    run_last_seq: 9,
    run_cost: 0.25,
    step_count: 7,
    input_tokens: 70,
    output_tokens: 35,
    cost: 0.5,
    slots: '{"order":"SO1"}',
    message_count: 2,
    version: 5,
    forked_from: null,
    forked_at: null,
    created_at: 1_796_000_000_000,
    updated_at: 1_796_000_000_500,
    expires_at: null,
    ttl_ms: null,
    run_locale: 'zh-CN',
    run_model: 'gpt-test',
    ...overrides,
  };
}

describe('toSession', () => {
  it("is the summary's fields in its order, less activeRunId and messageCount, then the run, messages and slots", () => {
    for (const sample of [
      row(),
      row({ active_run_id: null, tenant_id: null, user_id: 'u', forked_from: 's0', forked_at: 3, ttl_ms: 60_000 }),
      row({ expires_at: 1_796_000_060_000, run_locale: 'fr', run_model: null }),
    ]) {
      const { activeRunId: _activeRunId, messageCount: _messageCount, ...summary } = toSummary(sample);
      const session = toSession(sample, ['{"role":"user","content":"go"}']);
      expect(Object.keys(session)).toEqual([...Object.keys(summary), 'activeRun', 'messages', 'slots']);
      expect(session).toStrictEqual({
        ...summary,
        activeRun:
          sample.active_run_id === null
            ? undefined
            : {
                runId: sample.active_run_id,
                steps: sample.run_steps,
                usage: {
                  inputTokens: sample.run_input_tokens,
                  outputTokens: sample.run_output_tokens,
                  cachedInputTokens: sample.run_cached_tokens,
                  totalTokens: sample.run_input_tokens + sample.run_output_tokens,
                },
                lastSeq: sample.run_last_seq,
                cost: sample.run_cost,
              },
        messages: [{ role: 'user', content: 'go' }],
        slots: { order: 'SO1' },
      });
    }
  });
});
