import { describe, expect, it } from 'vitest';
import type { ChatMessage, ToolMessage } from '../core/chat-message.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import type { SideEffect } from '../tools/tool-types.js';
import { runAgent } from './run-agent.js';
import { calls, sequenceModel } from './test-support/sequence-model.js';

const user: ChatMessage = { role: 'user', content: 'Where are my order SO20260901 and its parcel?' };

/**
 * Tools that write `start:<name>` and `end:<name>` to one log. A tool
 * given `awaitAll` waits until that many tools have started (or 1 s has
 * passed, so a serialising loop fails the assertion instead of hanging).
 */
function recordingTools() {
  const log: string[] = [];
  let started = 0;
  let inFlight = 0;
  let peak = 0;
  const startedListeners = new Set<() => void>();
  const registry = new ToolRegistry();

  const waitForStarts = (count: number) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (started >= count) {
          startedListeners.delete(check);
          clearTimeout(timer);
          resolve();
        }
      };
      const timer = setTimeout(() => {
        startedListeners.delete(check);
        resolve();
      }, 1_000);
      startedListeners.add(check);
      check();
    });

  const add = (
    name: string,
    sideEffect: SideEffect,
    { awaitAll, delayMs = 0 }: { awaitAll?: number; delayMs?: number } = {},
  ) => {
    registry.register(
      defineTool<{ order_id: string }>({
        name,
        description: `${name}: a recording test tool.`,
        parameters: {
          type: 'object',
          properties: { order_id: { type: 'string', pattern: '^SO\\d{8}$' } },
          required: ['order_id'],
        },
        sideEffect,
        execute: async ({ order_id }) => {
          log.push(`start:${name}`);
          started += 1;
          inFlight += 1;
          peak = Math.max(peak, inFlight);
          for (const listener of [...startedListeners]) listener();
          if (awaitAll !== undefined) await waitForStarts(awaitAll);
          if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
          // Yield so that a concurrently scheduled tool could start in between, were the loop to allow it.
          await new Promise((resolve) => setImmediate(resolve));
          inFlight -= 1;
          log.push(`end:${name}`);
          return { tool: name, order_id };
        },
      }),
    );
  };
  return { registry, log, add, peak: () => peak };
}

function toolMessages(messages: readonly ChatMessage[]): ToolMessage[] {
  return messages.filter((message): message is ToolMessage => message.role === 'tool');
}

const order = { order_id: 'SO20260901' };

describe('runAgent with several tool calls in one turn', () => {
  it('runs three read calls concurrently and answers them in call order', async () => {
    const { registry, log, add } = recordingTools();
    add('query_order', 'read', { awaitAll: 3, delayMs: 30 });
    add('track_shipment', 'read', { awaitAll: 3, delayMs: 10 });
    add('list_refunds', 'read', { awaitAll: 3 });
    const turn = calls(['query_order', order], ['track_shipment', order], ['list_refunds', order]);

    const result = await runAgent({ model: sequenceModel([turn]), tools: registry, messages: [user] });

    expect(result.stopReason).toBe('completed');
    const firstEnd = log.findIndex((entry) => entry.startsWith('end:'));
    expect(log.slice(0, firstEnd).sort()).toEqual(['start:list_refunds', 'start:query_order', 'start:track_shipment']);
    expect(log.slice(firstEnd)).toHaveLength(3);
    expect(toolMessages(result.messages).map((message) => message.tool_call_id)).toEqual(
      turn.tool_calls?.map((call) => call.id),
    );
    expect(toolMessages(result.messages).map((message) => JSON.parse(message.content).tool)).toEqual([
      'query_order',
      'track_shipment',
      'list_refunds',
    ]);
  });

  it('runs a write call alone: the reads before it finish first, the reads after it start later', async () => {
    const { registry, log, add } = recordingTools();
    add('query_order', 'read', { delayMs: 20 });
    add('update_address', 'reversible', { delayMs: 10 });
    add('track_shipment', 'read');
    const turn = calls(['query_order', order], ['update_address', order], ['track_shipment', order]);

    const result = await runAgent({ model: sequenceModel([turn]), tools: registry, messages: [user] });

    expect(log).toEqual([
      'start:query_order',
      'end:query_order',
      'start:update_address',
      'end:update_address',
      'start:track_shipment',
      'end:track_shipment',
    ]);
    expect(toolMessages(result.messages).map((message) => message.tool_call_id)).toEqual(
      turn.tool_calls?.map((call) => call.id),
    );
  });

  it('never runs more reads at once than maxParallelReads', async () => {
    const { registry, add, peak } = recordingTools();
    const names = ['read_a', 'read_b', 'read_c', 'read_d', 'read_e'];
    for (const name of names) add(name, 'read', { delayMs: 5 });
    const turn = calls(...names.map((name): [string, unknown] => [name, order]));

    const result = await runAgent({
      model: sequenceModel([turn]),
      tools: registry,
      messages: [user],
      maxParallelReads: 2,
    });

    expect(peak()).toBe(2);
    expect(toolMessages(result.messages)).toHaveLength(5);
  });
});
