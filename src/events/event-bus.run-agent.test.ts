import { describe, expect, it } from 'vitest';
import type { AssistantMessage, ChatMessage } from '../core/chat-message.js';
import { type RunResult, runAgent } from '../loop/run-agent.js';
import { calls, sequenceModel } from '../loop/test-support/sequence-model.js';
import type { Model } from '../models/model.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import type { AgentEvent } from './agent-event.js';
import { EventBus } from './event-bus.js';

const user: ChatMessage = { role: 'user', content: 'Where is my order SO20260901?' };

function registry() {
  const tools = new ToolRegistry();
  for (const name of ['query_order', 'track_shipment']) {
    tools.register(
      defineTool<{ order_id: string }>({
        name,
        description: `${name} for one order. Not for anything else.`,
        parameters: {
          type: 'object',
          properties: { order_id: { type: 'string', description: 'Order number', pattern: '^SO\\d{8}$' } },
          required: ['order_id'],
        },
        sideEffect: 'read',
        execute: async ({ order_id }) => {
          await Promise.resolve();
          return { order_id, tool: name };
        },
      }),
    );
  }
  return tools;
}

const replies: readonly AssistantMessage[] = [
  calls(
    ['query_order', { order_id: 'SO20260901' }],
    ['track_shipment', { order_id: 'SO20260901' }],
    ['query_order', { order_id: '12345' }],
  ),
  { role: 'assistant', content: 'It ships tomorrow.' },
];

/** What a run decided, without its timings. */
function outcome(result: RunResult) {
  const { durationMs: _durationMs, ...rest } = result;
  return rest;
}

function shape(events: readonly AgentEvent[]) {
  return events.map((event) => `${event.seq} ${event.type}`);
}

describe('the event bus under a real run', () => {
  it('leaves the run’s result and every other subscriber’s events unchanged when listeners throw, reject or never return', async () => {
    const run = async (bus: EventBus) => {
      const seen: AgentEvent[] = [];
      bus.subscribe((event) => {
        seen.push(event);
      });
      const result = await runAgent({
        model: sequenceModel(replies),
        tools: registry(),
        messages: [user],
        runId: 'run-1',
        events: bus,
      });
      await new Promise((resolve) => setImmediate(resolve));
      return { result, seen };
    };

    const quiet = await run(new EventBus());
    const reported: AgentEvent[] = [];
    const noisy = new EventBus({ onListenerError: (_error, event) => reported.push(event) });
    noisy.subscribe(() => {
      throw new Error('listener bug');
    });
    noisy.subscribe(async () => {
      throw new Error('async listener bug');
    });
    const stalled = noisy.subscribe(() => new Promise<void>(() => {}), { queueSize: 4 });
    const loud = await run(noisy);

    expect(outcome(loud.result)).toEqual(outcome(quiet.result));
    expect(loud.result.stopReason).toBe('completed');
    expect(shape(loud.seen)).toEqual(shape(quiet.seen));
    expect(shape(quiet.seen)).toMatchInlineSnapshot(`
      [
        "1 run:start",
        "2 model:end",
        "3 tool:proposed",
        "4 tool:start",
        "5 tool:proposed",
        "6 tool:start",
        "7 tool:proposed",
        "8 tool:error",
        "9 tool:end",
        "10 tool:end",
        "11 model:end",
        "12 run:end",
      ]
    `);
    expect(reported).toHaveLength(2 * quiet.seen.length);
    expect(stalled.stats()).toMatchObject({ delivered: 1, queued: 4 });
  });

  it('keeps a stalled subscriber’s queue within 100 through 100,000 deltas and still hands it run:end and the whole text', async () => {
    const deltas = 100_000;
    const streaming: Model = {
      name: 'streaming',
      async generate({ onTextDelta }) {
        let text = '';
        for (let index = 0; index < deltas; index += 1) {
          const piece = String(index % 10);
          text += piece;
          onTextDelta?.(piece);
          if (index % 5_000 === 4_999) await new Promise((resolve) => setImmediate(resolve));
        }
        return {
          message: { role: 'assistant', content: text },
          usage: { inputTokens: 1, outputTokens: deltas },
          finishReason: 'stop',
        };
      },
    };
    const bus = new EventBus();
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const received: AgentEvent[] = [];
    let largestQueue = 0;
    const stalled = bus.subscribe(
      async (event) => {
        received.push(event);
        await released;
      },
      { queueSize: 100 },
    );
    const fast: AgentEvent[] = [];
    bus.subscribe((event) => {
      largestQueue = Math.max(largestQueue, stalled.stats().queued);
      fast.push(event);
    });

    const result = await runAgent({ model: streaming, tools: new ToolRegistry(), messages: [user], events: bus });
    expect(result.stopReason).toBe('completed');
    await new Promise((resolve) => setImmediate(resolve));
    expect(received.map((event) => event.type)).toEqual(['run:start']);
    expect(fast.at(-1)?.type).toBe('run:end');

    release();
    await stalled.idle();
    const stats = stalled.stats();
    expect(stats.maxQueued).toBeLessThanOrEqual(100);
    expect(largestQueue).toBeLessThanOrEqual(100);
    expect(stats.coalesced).toBeGreaterThan(deltas - 200);
    const types = received.map((event) => event.type);
    expect(types.at(-1)).toBe('run:end');
    expect(types.includes('gap') || (types.includes('run:start') && types.includes('run:end'))).toBe(true);
    const seqs = received.map((event) => event.seq);
    expect(seqs).toEqual([...seqs].sort((left, right) => left - right));
    const text = received.map((event) => (event.type === 'model:delta' ? event.text : '')).join('');
    expect(text).toBe(result.text);
  });
});
