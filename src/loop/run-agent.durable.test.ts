import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../core/chat-message.js';
import type { DurableSteps } from '../core/durable-steps.js';
import { arbiterSteps } from '../durable/arbiter-steps.js';
import type { AgentEvent } from '../events/agent-event.js';
import { EventBus } from '../events/event-bus.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { runAgent } from './run-agent.js';
import { calls, sequenceModel } from './test-support/sequence-model.js';

class WorkerCrash extends Error {}

/**
 * An engine in memory, as DBOS or Restate keep one: step results by their
 * position, handed back on replay. `crashAt` makes the worker die just
 * before that step would be recorded (its body ran: the effect happened).
 */
function memoryEngine({ recorded, crashAt }: { recorded: { name: string; value: unknown }[]; crashAt?: number }) {
  let position = 0;
  const ran: string[] = [];
  const steps: DurableSteps = {
    async step<Result>(name: string, run: () => Promise<Result>): Promise<Result> {
      const index = position;
      position += 1;
      const known = recorded[index];
      if (known !== undefined) {
        if (known.name !== name) throw new Error(`replay diverged at ${index}: ${known.name} then ${name}`);
        return known.value as Result;
      }
      ran.push(name);
      const value = await run();
      if (index === crashAt) throw new WorkerCrash(`killed while ${name} ran`);
      recorded.push({ name, value: JSON.parse(JSON.stringify(value)) });
      return value;
    },
    now: () => 1_700_000_000_000,
    newId: () => 'run-durable-1',
    waitForSignal: () => undefined,
  };
  return { steps, ran };
}

function shop() {
  const effects: string[] = [];
  const registry = new ToolRegistry();
  registry.register(
    defineTool<{ order_id: string }>({
      name: 'query_order',
      description: 'Look up one order. Not for refunds: use refund_order.',
      parameters: {
        type: 'object',
        properties: { order_id: { type: 'string', description: 'Order number', pattern: '^SO\\d{8}$' } },
        required: ['order_id'],
      },
      sideEffect: 'read',
      execute: ({ order_id }) => ({ order_id, status: 'delivered', paid: 2000 }),
    }),
  );
  registry.register(
    defineTool<{ order_id: string }>({
      name: 'refund_order',
      description: 'Refund an order in full. Not to look one up: use query_order.',
      parameters: {
        type: 'object',
        properties: { order_id: { type: 'string', description: 'Order number', pattern: '^SO\\d{8}$' } },
        required: ['order_id'],
      },
      sideEffect: 'irreversible',
      execute: ({ order_id }) => {
        effects.push(`refund ${order_id}`);
        return { refunded: 2000 };
      },
    }),
  );
  return { registry, effects };
}

const user: ChatMessage = { role: 'user', content: 'Refund SO20260901 please.' };

describe('runAgent with durable steps', () => {
  it('replays recorded steps after a crash: the model is not asked again, the write ran once, events have no gap', async () => {
    const { registry, effects } = shop();
    const replies = [
      calls(['query_order', { order_id: 'SO20260901' }]),
      calls(['refund_order', { order_id: 'SO20260901' }]),
      { role: 'assistant' as const, content: 'Refunded 20.00.' },
    ];
    const log = new Map<number, AgentEvent>();
    const recorded: { name: string; value: unknown }[] = [];
    const attempt = async (crashAt?: number) => {
      const events = new EventBus();
      const subscription = events.subscribe((event) => {
        if (!log.has(event.seq)) log.set(event.seq, event);
      });
      const model = sequenceModel(replies.slice(recorded.filter((step) => step.name.startsWith('model:')).length));
      const engine = memoryEngine({ recorded, ...(crashAt === undefined ? {} : { crashAt }) });
      try {
        return {
          result: await runAgent({
            model,
            runId: 'run-durable-1',
            tools: registry,
            messages: [user],
            steps: engine.steps,
            events,
            heartbeatMs: 0,
          }),
          model,
          engine,
        };
      } finally {
        await subscription.idle();
        subscription();
      }
    };
    // Steps: model:1, tool (read), model:2, tool (write) ← the worker dies here, after the refund took effect.
    const first = await attempt(3);
    expect(first.result.stopReason).toBe('error');
    expect(effects).toEqual(['refund SO20260901']);
    const second = await attempt();
    expect(second.result.stopReason).toBe('completed');
    expect(second.result.runId).toBe('run-durable-1');
    expect(second.result.text).toBe('Refunded 20.00.');
    // Asked once more only for the answer; the write step ran again (an engine retries an unrecorded step).
    expect(second.model.requests).toHaveLength(1);
    expect(second.engine.ran).toEqual([expect.stringMatching(/^tool:/), 'model:3']);
    const seqs = [...log.keys()].sort((left, right) => left - right);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
    expect(second.result.lastSeq).toBe(seqs.at(-1));
  });

  it('replays a whole recorded run without running anything, ending on the same seq', async () => {
    const { registry, effects } = shop();
    const replies = [
      calls(['refund_order', { order_id: 'SO20260902' }]),
      { role: 'assistant' as const, content: 'Done.' },
    ];
    const recorded: { name: string; value: unknown }[] = [];
    const first = await runAgent({
      model: sequenceModel(replies),
      tools: registry,
      messages: [user],
      steps: memoryEngine({ recorded }).steps,
      heartbeatMs: 0,
    });
    const replayModel = sequenceModel([]);
    const replay = memoryEngine({ recorded });
    // A subscriber that gets nothing from replayed steps: the bus numbers on from what they recorded.
    const seen: AgentEvent[] = [];
    const events = new EventBus();
    events.subscribe((event) => {
      seen.push(event);
    });
    const second = await runAgent({
      model: replayModel,
      tools: registry,
      messages: [user],
      steps: replay.steps,
      events,
      heartbeatMs: 0,
    });
    expect(effects).toEqual(['refund SO20260902']);
    expect(replayModel.requests).toHaveLength(0);
    expect(replay.ran).toEqual([]);
    expect(second.messages).toEqual(first.messages);
    expect(second.lastSeq).toBe(first.lastSeq);
    await events.idle();
    expect(seen.at(-1)?.seq).toBe(first.lastSeq);
  });

  it("runs arbiter's own steps as they are", async () => {
    const { registry, effects } = shop();
    const result = await runAgent({
      model: sequenceModel([calls(['refund_order', { order_id: 'SO20260903' }])]),
      tools: registry,
      messages: [user],
      steps: arbiterSteps,
      heartbeatMs: 0,
    });
    expect(result.stopReason).toBe('completed');
    expect(effects).toEqual(['refund SO20260903']);
  });
});
