import { describe, expect, it } from 'vitest';
import type { AssistantMessage, ChatMessage, ToolMessage } from '../core/chat-message.js';
import { FatalToolError } from '../errors/fatal-tool-error.js';
import { RetryableToolError } from '../errors/retryable-tool-error.js';
import type { AgentEvent } from '../events/agent-event.js';
import { EventBus } from '../events/event-bus.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { runAgent } from './run-agent.js';
import { calls, sequenceModel } from './test-support/sequence-model.js';

const user: ChatMessage = { role: 'user', content: 'Where is my order SO20260901?' };

function shopRegistry({ onQuery }: { onQuery?: (args: { order_id: string }) => unknown } = {}) {
  const executed: string[] = [];
  const registry = new ToolRegistry();
  registry.register(
    defineTool<{ order_id: string; tenant_id?: string; user_id?: string }>({
      name: 'query_order',
      description: 'Look up one order. Not for shipments: use track_shipment.',
      parameters: {
        type: 'object',
        properties: {
          order_id: {
            type: 'string',
            description: 'Order number: SO followed by 8 digits',
            pattern: '^SO\\d{8}$',
            examples: ['SO20260901'],
          },
          tenant_id: { type: 'string', description: "The customer's shop" },
          user_id: { type: 'string', description: 'The customer' },
        },
        required: ['order_id', 'tenant_id', 'user_id'],
      },
      sideEffect: 'read',
      groups: ['lookup'],
      boundParameters: { tenant_id: 'tenantId', user_id: (principal) => principal.userId },
      execute: (args) => {
        executed.push(`query_order ${args.order_id} for ${args.user_id}`);
        return onQuery ? onQuery(args) : { order_id: args.order_id, status: 'shipped' };
      },
    }),
  );
  registry.register(
    defineTool<{ order_id: string }>({
      name: 'track_shipment',
      description: 'Track the parcel of an order. Not for order status: use query_order.',
      parameters: {
        type: 'object',
        properties: { order_id: { type: 'string', description: 'Order number', pattern: '^SO\\d{8}$' } },
        required: ['order_id'],
      },
      sideEffect: 'read',
      groups: ['lookup'],
      execute: ({ order_id }) => {
        executed.push(`track_shipment ${order_id}`);
        return { order_id, carrier: 'SF' };
      },
    }),
  );
  return { registry, executed };
}

const principal = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] };

function toolMessages(messages: readonly ChatMessage[]): ToolMessage[] {
  return messages.filter((message): message is ToolMessage => message.role === 'tool');
}

function collect(bus: EventBus): AgentEvent[] {
  const events: AgentEvent[] = [];
  bus.subscribe((event) => {
    events.push(event);
  });
  return events;
}

describe('runAgent', () => {
  it('completes when the model answers without a tool call', async () => {
    const { registry } = shopRegistry();
    const result = await runAgent({
      model: sequenceModel([{ role: 'assistant', content: 'Hello!' }]),
      tools: registry,
      messages: [user],
    });
    expect(result.stopReason).toBe('completed');
    expect(result.text).toBe('Hello!');
    expect(result.steps).toBe(1);
    expect(result.newMessages).toEqual([{ role: 'assistant', content: 'Hello!' }]);
  });

  it('runs a valid call, answers it, and lets the model answer', async () => {
    const { registry, executed } = shopRegistry();
    const model = sequenceModel([
      calls(['query_order', { order_id: 'SO20260901' }]),
      { role: 'assistant', content: 'It shipped.' },
    ]);
    const result = await runAgent({ model, tools: registry, messages: [user], principal });
    expect(result.stopReason).toBe('completed');
    expect(executed).toEqual(['query_order SO20260901 for C1001']);
    expect(toolMessages(result.messages)[0]?.content).toBe('{"order_id":"SO20260901","status":"shipped"}');
    expect(result.usage).toEqual({ inputTokens: 20, outputTokens: 10, cachedInputTokens: 0, totalTokens: 30 });
  });

  it('ignores a user_id sent by the model and binds the principal instead', async () => {
    const { registry, executed } = shopRegistry();
    const model = sequenceModel([calls(['query_order', { order_id: 'SO20260901', user_id: 'C9999' }])]);
    await runAgent({ model, tools: registry, messages: [user], principal });
    expect(executed).toEqual(['query_order SO20260901 for C1001']);
    expect(model.requests[0]?.tools[0]?.function.parameters).not.toHaveProperty('properties.user_id');
  });

  it('rejects malformed JSON arguments before execution, as a tool message', async () => {
    const { registry, executed } = shopRegistry();
    const model = sequenceModel([calls(['query_order', '{"order_id": "SO2026'])]);
    const result = await runAgent({ model, tools: registry, messages: [user], principal });
    expect(executed).toEqual([]);
    expect(toolMessages(result.messages)[0]?.content).toMatch(/not valid JSON/);
    expect(result.stopReason).toBe('completed');
  });

  it('answers an unknown tool with the names that exist', async () => {
    const { registry, executed } = shopRegistry();
    const model = sequenceModel([calls(['cancel_order', { order_id: 'SO20260901' }])]);
    const result = await runAgent({ model, tools: registry, messages: [user] });
    expect(executed).toEqual([]);
    const content = toolMessages(result.messages)[0]?.content ?? '';
    expect(content).toContain('cancel_order');
    expect(content).toContain('query_order');
    expect(content).toContain('track_shipment');
  });

  it('answers a tool outside the mounted groups as unknown', async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'apply_refund',
        description: 'Refund an order. Not for looking up refunds: use query_refund.',
        parameters: { type: 'object', properties: {} },
        sideEffect: 'irreversible',
        groups: ['act'],
        execute: () => 'refunded',
      }),
    );
    registry.register(
      defineTool({
        name: 'query_refund',
        description: 'Look up a refund. Not for making one: use apply_refund.',
        parameters: { type: 'object', properties: {} },
        sideEffect: 'read',
        groups: ['lookup'],
        execute: () => ({ status: 'none' }),
      }),
    );
    const model = sequenceModel([calls(['apply_refund', {}])]);
    const result = await runAgent({ model, tools: registry, groups: ['lookup'], messages: [user] });
    expect(model.requests[0]?.tools.map((tool) => tool.function.name)).toEqual(['query_refund']);
    expect(toolMessages(result.messages)[0]?.content).toMatch(/apply_refund/);
    expect(toolMessages(result.messages)[0]?.content).not.toMatch(/^\{/);
  });

  it('returns a retryable tool error to the model with an invitation to retry', async () => {
    const { registry } = shopRegistry({
      onQuery: () => {
        throw new RetryableToolError({
          code: 'order_not_found',
          message: 'No order SO20269999 was found for this customer.',
        });
      },
    });
    const model = sequenceModel([
      calls(['query_order', { order_id: 'SO20269999' }]),
      { role: 'assistant', content: 'Which order?' },
    ]);
    const result = await runAgent({ model, tools: registry, messages: [user], principal });
    expect(result.stopReason).toBe('completed');
    expect(toolMessages(result.messages)[0]?.content).toMatchInlineSnapshot(
      `"Error (order_not_found): No order SO20269999 was found for this customer. You can correct the arguments and call query_order again."`,
    );
  });

  it('tells the model once, without inviting a retry, when a tool refuses for good', async () => {
    const { registry } = shopRegistry({
      onQuery: () => {
        throw new FatalToolError({ code: 'account_locked', message: 'This account is locked.' });
      },
    });
    const model = sequenceModel([
      calls(['query_order', { order_id: 'SO20260901' }]),
      { role: 'assistant', content: 'Sorry.' },
    ]);
    const result = await runAgent({ model, tools: registry, messages: [user], principal });
    expect(toolMessages(result.messages)[0]?.content).toMatchInlineSnapshot(
      `"Refused (account_locked): This account is locked. Do not call query_order again for this; tell the user what happened."`,
    );
  });

  it('stops with an error, not a model retry, when a tool fails unexpectedly', async () => {
    const { registry } = shopRegistry({
      onQuery: () => {
        throw new Error('SQLITE_BUSY: database is locked at /srv/shop/db.ts:42');
      },
    });
    const bus = new EventBus();
    const events = collect(bus);
    const twoCalls = sequenceModel([
      calls(['query_order', { order_id: 'SO20260901' }], ['track_shipment', { order_id: 'SO20260901' }]),
    ]);
    const result = await runAgent({ model: twoCalls, tools: registry, messages: [user], principal, events: bus });
    await Promise.resolve();
    expect(result.stopReason).toBe('error');
    expect(result.error?.code).toBe('infrastructure_failure');
    expect(twoCalls.requests).toHaveLength(1);
    const contents = toolMessages(result.messages).map((message) => message.content);
    expect(contents).toHaveLength(2);
    for (const content of contents) {
      expect(content).not.toMatch(/SQLITE|\/srv|db\.ts|\n\s+at /);
    }
    expect(events.at(-1)?.type).toBe('run:error');
  });
});

describe('runAgent brakes', () => {
  it('stops at max_steps with every call answered', async () => {
    const { registry } = shopRegistry();
    let n = 0;
    const model = sequenceModel(
      Array.from({ length: 10 }, () => () => calls(['query_order', { order_id: `SO2026090${n++ % 10}` }])),
    );
    const result = await runAgent({ model, tools: registry, messages: [user], principal, limits: { maxSteps: 3 } });
    expect(result.stopReason).toBe('max_steps');
    expect(result.steps).toBe(3);
    expect(toolMessages(result.messages)).toHaveLength(3);
  });

  it('stops at the token budget and answers the calls it will not run', async () => {
    const { registry, executed } = shopRegistry();
    const model = sequenceModel(
      [calls(['query_order', { order_id: 'SO20260901' }]), calls(['track_shipment', { order_id: 'SO20260901' }])],
      {
        usage: { inputTokens: 600, outputTokens: 100 },
      },
    );
    const result = await runAgent({
      model,
      tools: registry,
      messages: [user],
      principal,
      limits: { tokenBudget: 1_000 },
    });
    expect(result.stopReason).toBe('token_budget');
    expect(executed).toEqual(['query_order SO20260901 for C1001']);
    expect(toolMessages(result.messages).map((message) => message.content)[1]).toMatchInlineSnapshot(
      `"Not run: the run stopped before this call (the token budget is spent)."`,
    );
  });

  it('stops at the deadline while a tool is still running', async () => {
    const slow = new ToolRegistry().register(
      defineTool({
        name: 'wait_forever',
        description: 'Waits. Not for anything else.',
        parameters: { type: 'object', properties: {} },
        sideEffect: 'read',
        execute: (_args, context) =>
          new Promise((_resolve, reject) =>
            context.signal.addEventListener('abort', () => reject(context.signal.reason)),
          ),
      }),
    );
    const model = sequenceModel([calls(['wait_forever', {}], ['wait_forever', { again: true }])]);
    const result = await runAgent({ model, tools: slow, messages: [user], limits: { timeLimitMs: 30 } });
    expect(result.stopReason).toBe('deadline');
    expect(toolMessages(result.messages)).toHaveLength(2);
  });

  it('stops as aborted when the caller aborts, before or during the run', async () => {
    const { registry } = shopRegistry();
    const before = new AbortController();
    before.abort();
    const early = await runAgent({
      model: sequenceModel([]),
      tools: registry,
      messages: [user],
      signal: before.signal,
    });
    expect(early.stopReason).toBe('aborted');
    expect(early.steps).toBe(0);

    const during = new AbortController();
    const model = sequenceModel([
      () => {
        during.abort();
        return calls(['query_order', { order_id: 'SO20260901' }]);
      },
    ]);
    const result = await runAgent({ model, tools: registry, messages: [user], principal, signal: during.signal });
    expect(result.stopReason).toBe('aborted');
    expect(toolMessages(result.messages)).toHaveLength(1);
  });

  it('refuses the same call a third time and lets the model answer from what it has', async () => {
    const { registry, executed } = shopRegistry();
    const same = () => calls(['query_order', { order_id: 'SO20260901' }]);
    const model = sequenceModel([same(), same(), same(), { role: 'assistant', content: 'Your order shipped.' }]);
    const result = await runAgent({ model, tools: registry, messages: [user], principal });
    expect(result.stopReason).toBe('repeated_call');
    expect(executed).toHaveLength(2);
    expect(toolMessages(result.messages)[2]?.content).toMatchInlineSnapshot(
      `"Not run: you already called query_order with exactly these arguments 2 times and the result will not change. Do not call it again; answer the user from the results you already have."`,
    );
    expect(model.requests[3]?.tools).toEqual([]);
    expect(result.text).toBe('Your order shipped.');
  });

  it('treats key order as the same call', async () => {
    const registry = new ToolRegistry().register(
      defineTool({
        name: 'search_orders',
        description: 'Search orders. Not for one order: use query_order.',
        parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
        sideEffect: 'read',
        execute: () => [],
      }),
    );
    const model = sequenceModel([
      calls(['search_orders', '{"a":1,"b":2}']),
      calls(['search_orders', '{"b":2,"a":1}']),
      calls(['search_orders', '{ "a": 1, "b": 2 }']),
    ]);
    const result = await runAgent({ model, tools: registry, messages: [user] });
    expect(result.stopReason).toBe('repeated_call');
  });

  it('hands off to a person when the same tool fails twice in a row', async () => {
    const { registry } = shopRegistry({
      onQuery: () => {
        throw new RetryableToolError({ code: 'order_not_found', message: 'Not found.' });
      },
    });
    const model = sequenceModel([
      calls(['query_order', { order_id: 'SO20260901' }]),
      calls(['query_order', { order_id: 'SO20260902' }]),
    ]);
    const result = await runAgent({ model, tools: registry, messages: [user], principal });
    expect(result.stopReason).toBe('tool_failures');
    expect(model.requests).toHaveLength(2);
    expect(result.messages.at(-1)).toEqual({ role: 'assistant', content: result.text });
  });

  it('answers the rest of a batch as not run when a brake trips in the middle', async () => {
    const { registry, executed } = shopRegistry();
    const model = sequenceModel([
      calls(
        ['query_order', { order_id: 'bad-1' }],
        ['query_order', { order_id: 'bad-2' }],
        ['track_shipment', { order_id: 'SO20260901' }],
        ['query_order', { order_id: 'SO20260901' }],
      ),
    ]);
    const result = await runAgent({ model, tools: registry, messages: [user], principal, maxParallelReads: 1 });
    expect(result.stopReason).toBe('tool_failures');
    expect(executed).toEqual([]);
    const assistant = result.messages.find((message) => message.role === 'assistant' && message.tool_calls);
    const ids = assistant?.role === 'assistant' ? assistant.tool_calls?.map((call) => call.id) : [];
    expect(toolMessages(result.messages).map((message) => message.tool_call_id)).toEqual(ids);
    expect(toolMessages(result.messages)[3]?.content).toMatch(/^Not run: the run stopped before this call/);
  });

  it('numbers events strictly from run:start to run:end', async () => {
    const { registry } = shopRegistry();
    const bus = new EventBus();
    const events = collect(bus);
    const model = sequenceModel([
      calls(['query_order', { order_id: 'SO20260901' }]),
      { role: 'assistant', content: 'Shipped.' },
    ]);
    await runAgent({ model, tools: registry, messages: [user], principal, events: bus });
    await Promise.resolve();
    expect(events.map((event) => event.seq)).toEqual(events.map((_event, index) => index + 1));
    expect(events.map((event) => event.type)).toEqual([
      'run:start',
      'model:end',
      'tool:proposed',
      'tool:start',
      'tool:end',
      'model:end',
      'run:end',
    ]);
  });

  it('puts a cost on the run and stops at the cost budget', async () => {
    const { registry, executed } = shopRegistry();
    const prices = { sequence: { inputPerMillion: 1_000, outputPerMillion: 2_000 } };
    const model = sequenceModel(
      [calls(['query_order', { order_id: 'SO20260901' }]), calls(['track_shipment', { order_id: 'SO20260901' }])],
      { usage: { inputTokens: 100, outputTokens: 50 } },
    );
    const result = await runAgent({
      model,
      tools: registry,
      messages: [user],
      principal,
      prices,
      limits: { costBudget: 0.25 },
    });
    expect(result.stopReason).toBe('cost_budget');
    expect(result.cost).toBeCloseTo(0.4);
    expect(executed).toEqual(['query_order SO20260901 for C1001']);
  });

  it('refuses a cost budget it cannot enforce', async () => {
    const { registry } = shopRegistry();
    await expect(
      runAgent({ model: sequenceModel([]), tools: registry, messages: [user], limits: { costBudget: 1 } }),
    ).rejects.toThrow('limits.costBudget needs a price table');
  });

  it('reads null as absent for a model that decodes tools in strict mode, and only then', async () => {
    const received: unknown[] = [];
    const registry = new ToolRegistry().register(
      defineTool<{ order_id: string; note?: string }>({
        name: 'add_order_note',
        description: 'Add a note to an order. Not for refunds: use apply_refund.',
        parameters: {
          type: 'object',
          properties: { order_id: { type: 'string' }, note: { type: 'string', minLength: 1 } },
          required: ['order_id'],
          additionalProperties: false,
        },
        sideEffect: 'reversible',
        execute: (args) => {
          received.push(args);
          return { ok: true };
        },
      }),
    );
    const reply = () => calls(['add_order_note', { order_id: 'SO20260901', note: null }]);
    const strict = { ...sequenceModel([reply()]), strictTools: true };
    await runAgent({ model: strict, tools: registry, messages: [user] });
    expect(received).toEqual([{ order_id: 'SO20260901' }]);

    const loose = sequenceModel([reply()]);
    const result = await runAgent({ model: loose, tools: registry, messages: [user] });
    expect(received).toHaveLength(1);
    expect(toolMessages(result.messages)[0]?.content).toMatch(/`note`/);
  });

  it('gives a repeated tool call id a new one, so a new call never receives an old result', async () => {
    const { registry, executed } = shopRegistry();
    const sameId = (orderId: string): AssistantMessage => ({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_0',
          type: 'function',
          function: { name: 'query_order', arguments: JSON.stringify({ order_id: orderId }) },
        },
      ],
    });
    const model = sequenceModel([sameId('SO20260901'), sameId('SO20260902')]);
    const result = await runAgent({ model, tools: registry, messages: [user], principal });
    expect(executed).toEqual(['query_order SO20260901 for C1001', 'query_order SO20260902 for C1001']);
    const ids = toolMessages(result.messages).map((message) => message.tool_call_id);
    expect(new Set(ids).size).toBe(2);
    expect(toolMessages(result.messages)[1]?.content).toContain('SO20260902');
  });

  it('runs nothing after a call held for a person until it is decided', async () => {
    const executed: string[] = [];
    const registry = new ToolRegistry();
    for (const [name, sideEffect] of [
      ['apply_refund', 'irreversible'],
      ['add_order_note', 'reversible'],
    ] as const) {
      registry.register(
        defineTool({
          name,
          description: `${name}. Not for lookups: use query_order.`,
          parameters: { type: 'object', properties: {} },
          sideEffect,
          execute: () => {
            executed.push(name);
            return { ok: true };
          },
        }),
      );
    }
    const gate = {
      check: ({ tool }: { tool: { definition: { name: string } } }) =>
        tool.definition.name === 'apply_refund'
          ? { decision: 'require_approval' as const, rule: 'refund', reason: 'a person decides' }
          : { decision: 'allow' as const },
    };
    const requested: string[] = [];
    const approvals = {
      decide: async (request: { toolCallId: string }, options: { onRequired?: (approvalId: string) => void }) => {
        requested.push(request.toolCallId);
        options.onRequired?.(`ap_${request.toolCallId}`);
        return { status: 'pending' as const, approvalId: `ap_${request.toolCallId}` };
      },
    };
    const model = sequenceModel([calls(['apply_refund', {}], ['add_order_note', {}])]);
    const result = await runAgent({ model, tools: registry, messages: [user], gate, approvals });
    expect(result.stopReason).toBe('awaiting_approval');
    expect(executed).toEqual([]);
    expect(requested).toHaveLength(1);
    expect(toolMessages(result.messages)).toEqual([]);
  });

  it('answers a tool stopped mid-run as outcome unknown, not as never run', async () => {
    const abort = new AbortController();
    const registry = new ToolRegistry().register(
      defineTool({
        name: 'add_order_note',
        description: 'Add a note. Not for refunds: use apply_refund.',
        parameters: { type: 'object', properties: {} },
        sideEffect: 'reversible',
        execute: (_args, context) =>
          new Promise((_resolve, reject) => {
            context.signal.addEventListener('abort', () => reject(context.signal.reason));
            abort.abort();
          }),
      }),
    );
    const result = await runAgent({
      model: sequenceModel([calls(['add_order_note', {}])]),
      tools: registry,
      messages: [user],
      signal: abort.signal,
    });
    expect(result.stopReason).toBe('aborted');
    expect(toolMessages(result.messages)[0]?.content).toMatch(/^Not finished: add_order_note .* unknown/);
  });

  it('keeps the answer after a repeated call inside the step limit', async () => {
    const { registry } = shopRegistry();
    const same = () => calls(['query_order', { order_id: 'SO20260901' }]);
    const model = sequenceModel([same(), same(), same(), { role: 'assistant', content: 'never asked' }]);
    const result = await runAgent({ model, tools: registry, messages: [user], principal, limits: { maxSteps: 3 } });
    expect(result.stopReason).toBe('repeated_call');
    expect(result.steps).toBe(3);
    expect(model.requests).toHaveLength(3);
  });
});
