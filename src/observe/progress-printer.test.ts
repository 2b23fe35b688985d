import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent, AgentEventBody } from '../events/agent-event.js';
import { EventBus } from '../events/event-bus.js';
import { runAgent } from '../loop/run-agent.js';
import { calls, sequenceModel } from '../loop/test-support/sequence-model.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { createNdjsonPrinter, createProgressPrinter } from './progress-printer.js';

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

function stream(bodies: readonly AgentEventBody[]): AgentEvent[] {
  return bodies.map((body, index) => ({ ...body, runId: 'r1', seq: index + 1, at: 0 }) as AgentEvent);
}

const orderRun = stream([
  { type: 'run:start', sessionId: undefined, model: 'm' },
  { type: 'model:end', step: 1, usage, finishReason: 'tool_calls', toolCalls: 1 },
  { type: 'tool:proposed', step: 1, toolCallId: 'c1', tool: 'query_order', arguments: '{"order_id":12345}' },
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
  { type: 'tool:start', step: 2, toolCallId: 'c3', tool: 'track_shipment' },
  { type: 'heartbeat' },
  { type: 'tool:end', step: 2, toolCallId: 'c3', tool: 'track_shipment', durationMs: 2 },
  { type: 'model:delta', step: 3, text: 'It ships ' },
  { type: 'model:delta', step: 3, text: 'today.' },
  { type: 'run:end', stopReason: 'completed', steps: 3, usage, durationMs: 9 },
]);

/** Shows the escape codes a terminal would act on. */
const visible = (text: string) => text.replaceAll('\r\x1b[2K', '⟲');

afterEach(() => {
  vi.useRealTimers();
});

describe('createProgressPrinter', () => {
  it('prints a progress line per step on a pipe, without the typing indicator', async () => {
    let output = '';
    const printer = createProgressPrinter({ write: (text) => (output += text) });
    for (const event of orderRun) printer.listener(event);
    await printer.close();
    expect(output).toMatchInlineSnapshot(`
      "  › Fixing the request…
        › Looking up your order…
        › Checking the shipment…
      "
    `);
  });

  it('prints Chinese progress and clears the typing line before each line and at the end on a TTY', async () => {
    let output = '';
    const printer = createProgressPrinter({
      write: (text) => (output += text),
      locale: 'zh-CN',
      tty: true,
      streamAnswer: true,
    });
    for (const event of orderRun) printer.listener(event);
    await printer.close();
    expect(visible(output)).toMatchInlineSnapshot(`
      "… ⟲  › 正在修正请求…
      … ⟲  › 正在查询订单…
      … ⟲  › 正在查询物流…
      … ⟲It ships today.
      "
    `);
  });

  it('clears the typing line by itself when the run goes silent without run:end', async () => {
    vi.useFakeTimers();
    let output = '';
    const printer = createProgressPrinter({ write: (text) => (output += text), tty: true, typingTimeoutMs: 1000 });
    for (const event of orderRun.slice(0, 5)) printer.listener(event);
    vi.advanceTimersByTime(999);
    expect(visible(output).endsWith('… ')).toBe(true);
    vi.advanceTimersByTime(1);
    expect(visible(output).endsWith('⟲')).toBe(true);
    await printer.close();
  });

  it('prints progress as it happens, before the run returns its answer', async () => {
    const tools = new ToolRegistry().register(
      defineTool<{ order_id: string }>({
        name: 'query_order',
        description: 'Look up one order. Not for shipments: use track_shipment.',
        parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
        sideEffect: 'read',
        progress: { en: 'Looking up order details…' },
        execute: ({ order_id }) => ({ order_id, status: 'shipped' }),
      }),
    );
    const model = sequenceModel([
      calls(['query_order', { order_id: 'SO20260901' }]),
      { role: 'assistant', content: 'Shipped.' },
    ]);
    const lines: string[] = [];
    const bus = new EventBus();
    const printer = createProgressPrinter({ write: (text) => lines.push(text.trimEnd()), tools });
    bus.subscribe(printer.listener);
    const result = await runAgent({ model, tools, messages: [{ role: 'user', content: 'Where?' }], events: bus });
    lines.push(result.text ?? '');
    await printer.close();
    expect(lines).toEqual(['  › Looking up order details…', 'Shipped.']);
  });
});

describe('createNdjsonPrinter', () => {
  it('prints one projected event per line with deltas merged', async () => {
    vi.useFakeTimers();
    let output = '';
    const printer = createNdjsonPrinter({ write: (text) => (output += text) });
    for (const event of orderRun) await printer.listener(event);
    await printer.close();
    const printed = output
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { seq: number; type: string; text?: string });
    expect(
      printed.map((event) => `${event.seq} ${event.type}${event.text ? ` ${event.text}` : ''}`),
    ).toMatchInlineSnapshot(`
      [
        "1 run:start",
        "2 model:end",
        "3 tool:proposed",
        "4 tool:error Fixing the request…",
        "5 tool:start Looking up your order…",
        "6 tool:end",
        "7 tool:start Checking the shipment…",
        "8 heartbeat",
        "9 tool:end",
        "11 model:delta It ships today.",
        "12 run:end",
      ]
    `);
    expect(output).not.toContain('12345');
  });
});
