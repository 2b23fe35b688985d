import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../events/agent-event.js';
import { ServerMetrics } from './server-metrics.js';

const envelope = { runId: 'r1', seq: 1, at: 0 };
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

describe('ServerMetrics', () => {
  it('counts runs by stop reason, tool calls by outcome and gate decisions from the events it sees', () => {
    const metrics = new ServerMetrics();
    const events: AgentEvent[] = [
      { ...envelope, type: 'run:start', sessionId: 's1', model: 'm' },
      { ...envelope, type: 'tool:start', step: 1, toolCallId: 'c1', tool: 'query_order' },
      { ...envelope, type: 'tool:end', step: 1, toolCallId: 'c1', tool: 'query_order', durationMs: 12 },
      {
        ...envelope,
        type: 'tool:error',
        step: 1,
        toolCallId: 'c2',
        tool: 'query_order',
        stage: 'validation',
        code: 'pattern',
        retryable: true,
        durationMs: 1,
      },
      {
        ...envelope,
        type: 'approval:required',
        step: 2,
        toolCallId: 'c3',
        approvalId: 'ap_1',
        tool: 'apply_refund',
        arguments: {},
        rule: 'refund_50_yuan_or_more',
        reason: 'A person must decide.',
      },
      { ...envelope, type: 'run:end', stopReason: 'awaiting_approval', steps: 2, usage, durationMs: 40 },
      {
        ...envelope,
        type: 'approval:resolved',
        toolCallId: 'c3',
        approvalId: 'ap_1',
        tool: 'apply_refund',
        decision: 'approved',
        approver: 'S9001',
      },
      { ...envelope, type: 'tool:start', step: 2, toolCallId: 'c3', tool: 'apply_refund' },
      { ...envelope, type: 'tool:end', step: 2, toolCallId: 'c3', tool: 'apply_refund', durationMs: 3 },
      { ...envelope, type: 'run:end', stopReason: 'completed', steps: 3, usage, durationMs: 20 },
    ];
    for (const event of events) metrics.observe(event);
    const counters = metrics
      .render()
      .split('\n')
      .filter((line) => /^arbiter_(runs|tool_calls|gate_decisions)_total/.test(line));
    expect(counters).toMatchInlineSnapshot(`
      [
        "arbiter_runs_total{stop_reason="awaiting_approval"} 1",
        "arbiter_runs_total{stop_reason="completed"} 1",
        "arbiter_tool_calls_total{tool="query_order",outcome="ok"} 1",
        "arbiter_tool_calls_total{tool="query_order",outcome="validation"} 1",
        "arbiter_tool_calls_total{tool="apply_refund",outcome="ok"} 1",
        "arbiter_gate_decisions_total{decision="allowed"} 1",
        "arbiter_gate_decisions_total{decision="require_approval"} 1",
        "arbiter_gate_decisions_total{decision="approved"} 1",
      ]
    `);
    expect(metrics.render()).toContain('arbiter_tool_duration_seconds_bucket{tool="query_order",le="0.025"} 1');
  });
});
