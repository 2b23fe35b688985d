import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../events/agent-event.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { ServerMetrics } from './server-metrics.js';

const envelope = { runId: 'r1', seq: 1, at: 0 };
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

function registry(...names: string[]): ToolRegistry {
  const tools = new ToolRegistry();
  for (const name of names) {
    tools.register(
      defineTool({
        name,
        description: `Test tool ${name}. Not for anything else.`,
        parameters: { type: 'object', properties: {}, additionalProperties: false },
        sideEffect: 'read',
        execute: () => ({}),
      }),
    );
  }
  return tools;
}

describe('ServerMetrics', () => {
  it('counts runs by stop reason, tool calls by outcome and gate decisions from the events it sees', () => {
    const metrics = new ServerMetrics({ tools: registry('query_order', 'apply_refund'), tenantOf: () => 'shop' });
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
        "arbiter_runs_total{tenant="shop",stop_reason="awaiting_approval"} 1",
        "arbiter_runs_total{tenant="shop",stop_reason="completed"} 1",
        "arbiter_tool_calls_total{tenant="shop",tool="query_order",outcome="ok"} 1",
        "arbiter_tool_calls_total{tenant="shop",tool="query_order",outcome="validation"} 1",
        "arbiter_tool_calls_total{tenant="shop",tool="apply_refund",outcome="ok"} 1",
        "arbiter_gate_decisions_total{tenant="shop",decision="allowed"} 1",
        "arbiter_gate_decisions_total{tenant="shop",decision="require_approval"} 1",
        "arbiter_gate_decisions_total{tenant="shop",decision="approved"} 1",
      ]
    `);
    expect(metrics.render()).toContain(
      'arbiter_tool_duration_seconds_bucket{tenant="shop",tool="query_order",le="0.025"} 1',
    );
  });

  it('counts tool names the registry does not know under one label, however many a model invents', () => {
    const metrics = new ServerMetrics({ tools: registry('query_order'), tenantOf: () => 'shop' });
    for (let index = 0; index < 500; index += 1) {
      metrics.observe({
        ...envelope,
        type: 'tool:error',
        step: 1,
        toolCallId: `c${index}`,
        tool: `invented_tool_${index}`,
        stage: 'validation',
        code: 'unknown_tool',
        retryable: true,
        durationMs: 0,
      });
    }
    const lines = metrics
      .render()
      .split('\n')
      .filter((line) => line.startsWith('arbiter_tool_calls_total'));
    expect(lines).toEqual(['arbiter_tool_calls_total{tenant="shop",tool="unknown",outcome="validation"} 500']);
  });

  it("renders one tenant's run, tool and gate series only, without the process-wide ones", () => {
    const tenants: Record<string, string> = { r1: 'shop', r2: 'other-shop' };
    const metrics = new ServerMetrics({ tools: registry('query_order'), tenantOf: (runId) => tenants[runId] });
    for (const runId of ['r1', 'r2']) {
      metrics.observe({
        ...envelope,
        runId,
        type: 'tool:end',
        step: 1,
        toolCallId: 'c1',
        tool: 'query_order',
        durationMs: 2,
      });
      metrics.observe({ ...envelope, runId, type: 'run:end', stopReason: 'completed', steps: 1, usage, durationMs: 5 });
    }
    const own = metrics.render({ tenantId: 'shop' });
    expect(own).toContain('arbiter_runs_total{tenant="shop",stop_reason="completed"} 1');
    expect(own).toContain('arbiter_tool_calls_total{tenant="shop",tool="query_order",outcome="ok"} 1');
    expect(own).not.toContain('other-shop');
    expect(own).not.toMatch(/arbiter_http_request|arbiter_sse_streams|process_resident_memory_bytes/);
    expect(metrics.render()).toContain('arbiter_runs_total{tenant="other-shop",stop_reason="completed"} 1');
  });
});
