import { describe, expect, it } from 'vitest';
import type { ChatMessage, ToolMessage } from '../core/chat-message.js';
import type { AgentEvent } from '../events/agent-event.js';
import { EventBus } from '../events/event-bus.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import type { SideEffect } from '../tools/tool-types.js';
import { runAgent } from './run-agent.js';
import { calls, sequenceModel } from './test-support/sequence-model.js';

const user: ChatMessage = { role: 'user', content: 'Where is my order SO20260901?' };
const order = { order_id: 'SO20260901' };

/**
 * A tool that never answers by itself. `honoursAbort` makes it give up when
 * its signal aborts (as a well-behaved tool does); otherwise it hangs for good.
 */
function hangingTool({
  name,
  sideEffect = 'read',
  retrySafe,
  timeoutMs,
  honoursAbort = true,
  seen,
}: {
  name: string;
  sideEffect?: SideEffect;
  retrySafe?: boolean;
  timeoutMs?: number;
  honoursAbort?: boolean;
  seen: { aborted: unknown[] };
}) {
  return defineTool<{ order_id: string }>({
    name,
    description: `${name}: a tool that hangs.`,
    parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
    sideEffect,
    ...(retrySafe === undefined ? {} : { retrySafe }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    execute: (_args, context) =>
      new Promise((_resolve, reject) => {
        context.signal.addEventListener('abort', () => {
          seen.aborted.push(context.signal.reason);
          if (honoursAbort) reject(context.signal.reason);
        });
      }),
  });
}

function collect(bus: EventBus): AgentEvent[] {
  const events: AgentEvent[] = [];
  bus.subscribe((event) => {
    events.push(event);
  });
  return events;
}

function toolMessages(messages: readonly ChatMessage[]): ToolMessage[] {
  return messages.filter((message): message is ToolMessage => message.role === 'tool');
}

describe('per-call tool time limits', () => {
  it('tells the model a retry-safe tool timed out, as a retryable error, and the run goes on', async () => {
    const seen = { aborted: [] as unknown[] };
    const registry = new ToolRegistry().register(hangingTool({ name: 'query_order', retrySafe: true, seen }));
    const events = new EventBus();
    const log = collect(events);
    const model = sequenceModel([calls(['query_order', order]), { role: 'assistant', content: 'Sorry, try later.' }]);

    const result = await runAgent({ model, tools: registry, messages: [user], toolTimeoutMs: 20, events });

    expect(result.stopReason).toBe('completed');
    expect(toolMessages(result.messages).map((message) => message.content)).toMatchInlineSnapshot(`
      [
        "query_order did not answer within 0.02 seconds. You can call it again.",
      ]
    `);
    expect(model.requests).toHaveLength(2);
    expect(log.find((event) => event.type === 'tool:error')).toMatchObject({
      stage: 'execution',
      code: 'tool_timeout',
      retryable: true,
    });
    expect(seen.aborted).toHaveLength(1);
    expect((seen.aborted[0] as Error).message).toBe('tool "query_order" did not finish within 20 ms');
  });

  it('stops the run with an error when a tool that is not retry-safe times out, and never asks the model', async () => {
    const seen = { aborted: [] as unknown[] };
    const registry = new ToolRegistry().register(
      hangingTool({ name: 'update_address', sideEffect: 'reversible', seen }),
    );
    const events = new EventBus();
    const log = collect(events);
    const turn = calls(['update_address', order]);
    const model = sequenceModel([turn]);

    const result = await runAgent({ model, tools: registry, messages: [user], toolTimeoutMs: 20, events });

    expect(result.stopReason).toBe('error');
    expect(result.error?.code).toBe('infrastructure_failure');
    expect(result.error?.message).toBe('tool "update_address" failed unexpectedly');
    expect(model.requests).toHaveLength(1);
    expect(log.map((event) => event.type)).toContain('run:error');
    expect(log.map((event) => event.type)).not.toContain('run:end');
    // Every tool_call_id is still answered, so the conversation stays valid for a later run.
    expect(toolMessages(result.messages).map((message) => message.tool_call_id)).toEqual([turn.tool_calls?.[0]?.id]);
  });

  it('answers a timed-out write as "outcome unknown", not as "not run" (it did run)', async () => {
    const seen = { aborted: [] as unknown[] };
    const registry = new ToolRegistry().register(
      hangingTool({ name: 'update_address', sideEffect: 'reversible', seen }),
    );
    const result = await runAgent({
      model: sequenceModel([calls(['update_address', order])]),
      tools: registry,
      messages: [user],
      toolTimeoutMs: 20,
    });

    expect(toolMessages(result.messages)[0]?.content).not.toMatch(/^Not run/);
  });

  it('closes the tool:start of a timed-out write with a tool:error event', async () => {
    const seen = { aborted: [] as unknown[] };
    const registry = new ToolRegistry().register(
      hangingTool({ name: 'update_address', sideEffect: 'reversible', seen }),
    );
    const events = new EventBus();
    const log = collect(events);
    await runAgent({
      model: sequenceModel([calls(['update_address', order])]),
      tools: registry,
      messages: [user],
      toolTimeoutMs: 20,
      events,
    });

    expect(log.find((event) => event.type === 'tool:error')).toMatchObject({
      tool: 'update_address',
      stage: 'execution',
      code: 'tool_timeout',
      retryable: false,
    });
  });

  it("uses the tool's own timeoutMs over the run default", async () => {
    const seen = { aborted: [] as unknown[] };
    const registry = new ToolRegistry().register(
      hangingTool({ name: 'query_order', retrySafe: true, timeoutMs: 15, seen }),
    );
    const model = sequenceModel([calls(['query_order', order])]);

    const started = performance.now();
    const result = await runAgent({ model, tools: registry, messages: [user], toolTimeoutMs: 60_000 });

    expect(performance.now() - started).toBeLessThan(5_000);
    expect(toolMessages(result.messages)[0]?.content).toBe(
      'query_order did not answer within 0.015 seconds. You can call it again.',
    );
  });

  it('does not hang on a tool that ignores its abort signal', async () => {
    const seen = { aborted: [] as unknown[] };
    const registry = new ToolRegistry().register(
      hangingTool({ name: 'query_order', retrySafe: true, honoursAbort: false, seen }),
    );
    const model = sequenceModel([calls(['query_order', order])]);

    const result = await runAgent({ model, tools: registry, messages: [user], toolTimeoutMs: 20 });

    expect(result.stopReason).toBe('completed');
    expect(seen.aborted).toHaveLength(1);
    expect(toolMessages(result.messages)[0]?.content).toMatch(/did not answer within 0.02 seconds/);
  });

  it('reports a cancelled run as aborted, not as a timeout', async () => {
    const seen = { aborted: [] as unknown[] };
    const registry = new ToolRegistry().register(hangingTool({ name: 'query_order', retrySafe: true, seen }));
    const model = sequenceModel([calls(['query_order', order])]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);

    const result = await runAgent({
      model,
      tools: registry,
      messages: [user],
      toolTimeoutMs: 5_000,
      signal: controller.signal,
    });

    expect(result.stopReason).toBe('aborted');
    expect(model.requests).toHaveLength(1);
  });
});
