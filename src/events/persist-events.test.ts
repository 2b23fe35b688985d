import { afterEach, describe, expect, it } from 'vitest';
import { runAgent } from '../loop/run-agent.js';
import { calls } from '../loop/test-support/sequence-model.js';
import type { Model } from '../models/model.js';
import { SqliteEventLog } from '../store/sqlite/sqlite-event-log.js';
import { openSqliteStore, type SqliteStore } from '../store/sqlite/sqlite-store.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { EventBus } from './event-bus.js';
import { persistEvents } from './persist-events.js';

const stores: SqliteStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});

const phone = '+86 138 0013 8000';

function setup() {
  const store = openSqliteStore({ path: ':memory:' });
  stores.push(store);
  const tools = new ToolRegistry().register(
    defineTool<{ order_id: string; recipient_phone: string }>({
      name: 'update_order_phone',
      description: 'Change the phone of an order. Not for addresses: use update_order_address.',
      parameters: {
        type: 'object',
        properties: { order_id: { type: 'string' }, recipient_phone: { type: 'string' } },
        required: ['order_id', 'recipient_phone'],
      },
      sideEffect: 'reversible',
      progress: { en: 'Updating the phone number…' },
      execute: ({ order_id }) => ({ order_id, updated: true }),
    }),
  );
  const pieces = ['Done', ', the ', 'phone ', 'is updated.'];
  let step = 0;
  const model: Model = {
    name: 'test',
    async generate({ onTextDelta }) {
      step += 1;
      if (step === 1) {
        return {
          message: calls(['update_order_phone', { order_id: 'SO20260901', recipient_phone: phone }]),
          usage: { inputTokens: 1, outputTokens: 1 },
          finishReason: 'tool_calls',
        };
      }
      for (const piece of pieces) onTextDelta?.(piece);
      return {
        message: { role: 'assistant', content: pieces.join('') },
        usage: { inputTokens: 1, outputTokens: 1 },
        finishReason: 'stop',
      };
    },
  };
  return { store, tools, model, log: new SqliteEventLog({ database: store.database }) };
}

describe('persistEvents', () => {
  it('writes every event of a run, projected and with deltas merged, so it can be replayed from any seq', async () => {
    const { store, tools, model, log } = setup();
    const bus = new EventBus();
    const persisting = persistEvents({ bus, log, tools });
    const result = await runAgent({ model, tools, messages: [{ role: 'user', content: 'hi' }], events: bus });
    await persisting.idle();
    persisting();

    const stored = log.readEvents({ runId: result.runId });
    expect(stored.map((event) => `${event.seq} ${event.type}`)).toMatchInlineSnapshot(`
      [
        "1 run:start",
        "2 model:end",
        "3 tool:proposed",
        "4 tool:start",
        "5 tool:end",
        "9 model:delta",
        "10 model:end",
        "11 run:end",
      ]
    `);
    expect(stored.find((event) => event.type === 'model:delta')).toMatchObject({ text: 'Done, the phone is updated.' });
    expect(stored.find((event) => event.type === 'tool:start')).toMatchObject({ text: 'Updating the phone number…' });
    expect(log.readEvents({ runId: result.runId, afterSeq: 5 }).map((event) => event.seq)).toEqual([9, 10, 11]);
    expect(log.lastSeq(result.runId)).toBe(result.lastSeq);
    const raw = store.database.prepare('SELECT event FROM run_events').all() as { event: string }[];
    expect(raw.map((row) => row.event).join('\n')).not.toContain(phone);
  });
});
