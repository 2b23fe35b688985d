import { afterEach, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../core/chat-message.js';
import { ConfigurationError } from '../errors/configuration-error.js';
import { ModelError } from '../errors/model-error.js';
import { runAgent } from '../loop/run-agent.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { createConfiguredModel } from './create-configured-model.js';
import type { ModelDecision } from './model-decision.js';
import { ModelSemaphore } from './model-semaphore.js';
import { OpenAiResponsesModel, type OpenAiResponsesModelOptions } from './openai-responses-model.js';
import { ResilientModel } from './resilient-model.js';
import { type FakeChatServer, type FakeResponder, startFakeChatServer } from './test-support/fake-chat-server.js';
import { toResponseEvents } from './test-support/response-events.js';

const apiKey = 'sk-arbiter-LEAKCHECK-5c1e9a77b0';
const question: ChatMessage[] = [{ role: 'user', content: 'Where is order SO20260901?' }];
const fast = { baseDelayMs: 5, maxDelayMs: 20 };

let server: FakeChatServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(respond: FakeResponder): Promise<FakeChatServer> {
  server = await startFakeChatServer({ respond });
  return server;
}

function responsesModel(
  endpoint: FakeChatServer,
  options: Partial<OpenAiResponsesModelOptions> = {},
): OpenAiResponsesModel {
  return new OpenAiResponsesModel({ baseUrl: endpoint.url, apiKey, model: 'gpt-5-mini', ...options });
}

function bodyOf(endpoint: FakeChatServer, index: number): Record<string, unknown> {
  return endpoint.requests[index]?.body as Record<string, unknown>;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

function orderTools(executed: string[] = []): ToolRegistry {
  return new ToolRegistry()
    .register(
      defineTool<{ order_id: string }>({
        name: 'query_order',
        description: 'Look up an order. Not for shipments: use track_shipment.',
        parameters: {
          type: 'object',
          properties: { order_id: { type: 'string', description: 'Order id, e.g. SO20260901', pattern: '^SO\\d{8}$' } },
          required: ['order_id'],
        },
        sideEffect: 'read',
        execute: ({ order_id }) => {
          executed.push(`query_order ${order_id}`);
          return { order_id, status: 'shipped' };
        },
      }),
    )
    .register(
      defineTool<{ order_id: string }>({
        name: 'track_shipment',
        description: 'Track the parcel of an order. Not for order status: use query_order.',
        parameters: {
          type: 'object',
          properties: { order_id: { type: 'string', description: 'Order id, e.g. SO20260901' } },
          required: ['order_id'],
        },
        sideEffect: 'read',
        execute: ({ order_id }) => {
          executed.push(`track_shipment ${order_id}`);
          return { order_id, carrier: 'SF', eta: '2026-12-03' };
        },
      }),
    );
}

describe('OpenAiResponsesModel', () => {
  it('streams output_text deltas, maps usage and sends the conversation as items with non-strict tools', async () => {
    const endpoint = await serve([
      {
        kind: 'response',
        text: 'It shipped yesterday.',
        textChunkSize: 5,
        usage: { promptTokens: 42, completionTokens: 6, cachedTokens: 32 },
      },
    ]);
    const deltas: string[] = [];
    const response = await responsesModel(endpoint).generate({
      messages: [{ role: 'system', content: 'You are the shop assistant.' }, ...question],
      tools: orderTools().specs,
      onTextDelta: (text) => deltas.push(text),
      maxOutputTokens: 500,
    });
    expect(deltas).toEqual(['It sh', 'ipped', ' yest', 'erday', '.']);
    expect(response).toEqual({
      message: { role: 'assistant', content: 'It shipped yesterday.', response_id: 'resp_fake_0' },
      usage: { inputTokens: 42, outputTokens: 6, cachedInputTokens: 32 },
      finishReason: 'stop',
    });
    expect(endpoint.requests[0]?.path).toBe('/v1/responses');
    expect(bodyOf(endpoint, 0)).toEqual({
      model: 'gpt-5-mini',
      input: [
        { type: 'message', role: 'system', content: 'You are the shop assistant.' },
        { type: 'message', role: 'user', content: 'Where is order SO20260901?' },
      ],
      tools: [
        {
          type: 'function',
          name: 'query_order',
          description: 'Look up an order. Not for shipments: use track_shipment.',
          parameters: expect.objectContaining({ required: ['order_id'] }),
          strict: false,
        },
        expect.objectContaining({ type: 'function', name: 'track_shipment', strict: false }),
      ],
      max_output_tokens: 500,
      store: false,
      include: ['reasoning.encrypted_content'],
      stream: true,
    });
    expect(endpoint.requests[0]?.headers['authorization']).toBe(`Bearer ${apiKey}`);
  });

  it('assembles a function call from argument deltas, and carries reasoning items into the next request', async () => {
    const executed: string[] = [];
    const endpoint = await serve([
      {
        kind: 'response',
        reasoning: { summary: 'Look the order up first.', encryptedContent: 'gAAAAB-opaque-reasoning-1' },
        toolCalls: [{ id: 'call_q1', name: 'query_order', arguments: '{"order_id":"SO20260901"}' }],
        argumentChunkSize: 4,
      },
      { kind: 'response', text: 'Order SO20260901 has shipped.' },
    ]);
    const result = await runAgent({ model: responsesModel(endpoint), tools: orderTools(executed), messages: question });
    expect(result.stopReason).toBe('completed');
    expect(result.text).toBe('Order SO20260901 has shipped.');
    expect(executed).toEqual(['query_order SO20260901']);
    const [assistant] = result.newMessages;
    expect(assistant).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_q1', type: 'function', function: { name: 'query_order', arguments: '{"order_id":"SO20260901"}' } },
      ],
      reasoning: [{ id: 'rs_fake_0', encrypted_content: 'gAAAAB-opaque-reasoning-1' }],
      response_id: 'resp_fake_0',
    });
    expect(bodyOf(endpoint, 1)['input']).toEqual([
      { type: 'message', role: 'user', content: 'Where is order SO20260901?' },
      { type: 'reasoning', id: 'rs_fake_0', summary: [], encrypted_content: 'gAAAAB-opaque-reasoning-1' },
      { type: 'function_call', call_id: 'call_q1', name: 'query_order', arguments: '{"order_id":"SO20260901"}' },
      { type: 'function_call_output', call_id: 'call_q1', output: '{"order_id":"SO20260901","status":"shipped"}' },
    ]);
    expect(bodyOf(endpoint, 1)['previous_response_id']).toBeUndefined();
  });

  it('runs parallel function calls (argument deltas interleaved by item) and answers each by call_id', async () => {
    const executed: string[] = [];
    const recorded = toResponseEvents(
      {
        toolCalls: [
          { id: 'call_a', name: 'query_order', arguments: '{"order_id":"SO20260901"}' },
          { id: 'call_b', name: 'track_shipment', arguments: '{"order_id":"SO20260901"}' },
        ],
        argumentChunkSize: 6,
      },
      { id: 'resp_parallel', model: 'gpt-5-mini' },
    );
    // Interleave the two calls' argument deltas, as a provider streaming both at once may.
    const deltas = recorded.filter((event) => event['type'] === 'response.function_call_arguments.delta');
    const others = recorded.filter((event) => event['type'] !== 'response.function_call_arguments.delta');
    const first = deltas.filter((event) => event['item_id'] === 'fc_fake_0');
    const second = deltas.filter((event) => event['item_id'] === 'fc_fake_1');
    const interleaved = first.flatMap((event, index) => [
      event,
      ...(second[index] === undefined ? [] : [second[index]]),
    ]);
    const addedSecond = others.findIndex(
      (event) => event['type'] === 'response.output_item.added' && event['output_index'] === 1,
    );
    const chunks = [...others.slice(0, addedSecond + 1), ...interleaved, ...others.slice(addedSecond + 1)];
    const endpoint = await serve([
      { kind: 'chunks', chunks },
      { kind: 'response', text: 'Shipped with SF, arriving 3 December.' },
    ]);

    const result = await runAgent({ model: responsesModel(endpoint), tools: orderTools(executed), messages: question });
    expect(result.stopReason).toBe('completed');
    expect(executed.sort()).toEqual(['query_order SO20260901', 'track_shipment SO20260901']);
    const input = bodyOf(endpoint, 1)['input'] as Record<string, unknown>[];
    expect(input.map((item) => [item['type'], item['call_id'] ?? null])).toEqual([
      ['message', null],
      ['function_call', 'call_a'],
      ['function_call', 'call_b'],
      ['function_call_output', 'call_a'],
      ['function_call_output', 'call_b'],
    ]);
    expect(input[1]).toMatchObject({ arguments: '{"order_id":"SO20260901"}' });
    expect(input[4]?.['output']).toContain('"carrier":"SF"');
  });

  it('maps a refusal to finish reason content_filter with the refusal as content and as response.refusal', async () => {
    const endpoint = await serve([{ kind: 'response', refusal: "I'm sorry, I can't help with that." }]);
    const deltas: string[] = [];
    const response = await responsesModel(endpoint).generate({
      messages: question,
      tools: [],
      onTextDelta: (text) => deltas.push(text),
    });
    expect(response.finishReason).toBe('content_filter');
    expect(response.refusal).toBe("I'm sorry, I can't help with that.");
    expect(response.message.content).toBe("I'm sorry, I can't help with that.");
    expect(deltas.join('')).toBe("I'm sorry, I can't help with that.");
  });

  it('maps incomplete because of max_output_tokens to finish reason length, keeping the partial text', async () => {
    const endpoint = await serve([{ kind: 'response', text: 'The order was', status: 'incomplete' }]);
    const response = await responsesModel(endpoint).generate({ messages: question, tools: [], maxOutputTokens: 16 });
    expect(response).toMatchObject({ finishReason: 'length', message: { content: 'The order was' } });
    expect(bodyOf(endpoint, 0)['max_output_tokens']).toBe(16);
  });

  it('retries a function call cut off at max_output_tokens once with a higher limit (ResilientModel)', async () => {
    const endpoint = await serve([
      {
        kind: 'response',
        toolCalls: [{ id: 'call_t', name: 'query_order', arguments: '{"order_id":"SO2026' }],
        status: 'incomplete',
      },
      { kind: 'response', toolCalls: [{ id: 'call_t', name: 'query_order', arguments: '{"order_id":"SO20260901"}' }] },
    ]);
    const decisions: ModelDecision[] = [];
    const model = new ResilientModel({
      primary: responsesModel(endpoint),
      policy: fast,
      semaphore: new ModelSemaphore({ limit: 2 }),
      onDecision: (decision) => decisions.push(decision),
    });
    const response = await model.generate({ messages: question, tools: orderTools().specs, maxOutputTokens: 100 });
    expect(response.finishReason).toBe('tool_calls');
    expect(response.message.tool_calls?.[0]?.function.arguments).toBe('{"order_id":"SO20260901"}');
    expect(decisions.map((decision) => [decision.kind, decision.errorKind])).toEqual([['expand_output', 'truncated']]);
    expect(Number(bodyOf(endpoint, 1)['max_output_tokens'])).toBeGreaterThan(100);
  });

  it('waits the Retry-After of a 429 before trying again (ResilientModel)', async () => {
    const arrivals: number[] = [];
    const endpoint = await serve((_request, index) => {
      arrivals.push(performance.now());
      return index === 0
        ? {
            kind: 'error',
            status: 429,
            headers: { 'retry-after': '1' },
            body: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } },
          }
        : { kind: 'response', text: 'ok' };
    });
    const decisions: ModelDecision[] = [];
    const model = new ResilientModel({
      primary: responsesModel(endpoint),
      policy: fast,
      semaphore: new ModelSemaphore({ limit: 4 }),
      onDecision: (decision) => decisions.push(decision),
    });
    const response = await model.generate({ messages: question, tools: [] });
    expect(response.message.content).toBe('ok');
    const [first = 0, second = 0] = arrivals;
    expect(second - first).toBeGreaterThanOrEqual(1_000);
    expect(decisions).toMatchObject([{ kind: 'wait', errorKind: 'rate_limited', status: 429, delayMs: 1_000 }]);
  });

  it('falls back to the second model after repeated 500s, and says which answered (ResilientModel)', async () => {
    const endpoint = await serve((request) =>
      (request.body as { model: string }).model === 'gpt-5'
        ? { kind: 'error', status: 500 }
        : { kind: 'response', text: 'Answered by the fallback.' },
    );
    const decisions: ModelDecision[] = [];
    const model = new ResilientModel({
      primary: responsesModel(endpoint, { model: 'gpt-5' }),
      fallback: responsesModel(endpoint, { model: 'gpt-5-mini' }),
      policy: fast,
      semaphore: new ModelSemaphore({ limit: 4 }),
      onDecision: (decision) => decisions.push(decision),
    });
    const response = await model.generate({ messages: question, tools: [] });
    expect(response.message.content).toBe('Answered by the fallback.');
    expect(response.model).toBe('gpt-5-mini');
    expect(endpoint.requests.map((request) => [request.path, (request.body as { model: string }).model])).toEqual([
      ['/v1/responses', 'gpt-5'],
      ['/v1/responses', 'gpt-5'],
      ['/v1/responses', 'gpt-5'],
      ['/v1/responses', 'gpt-5-mini'],
    ]);
    expect(decisions.map((decision) => [decision.kind, decision.status])).toEqual([
      ['retry', 500],
      ['retry', 500],
      ['fallback', 500],
    ]);
  });

  it('turns response.failed and stream error events into ModelErrors the policy can act on, never quoting the key', async () => {
    const failedEvents = [
      { type: 'response.created', sequence_number: 0, response: { id: 'resp_x', status: 'in_progress', output: [] } },
      {
        type: 'response.failed',
        sequence_number: 1,
        response: {
          id: 'resp_x',
          status: 'failed',
          output: [],
          error: { code: 'server_error', message: `upstream broke (key ${apiKey})` },
        },
      },
    ];
    const rateEvents = [
      { type: 'error', sequence_number: 0, code: 'rate_limit_exceeded', message: 'Slow down', param: null },
    ];
    const endpoint = await serve([
      { kind: 'chunks', chunks: failedEvents },
      { kind: 'chunks', chunks: rateEvents },
      { kind: 'chunks', chunks: failedEvents.slice(0, 1) },
    ]);
    const model = responsesModel(endpoint);
    const failed = await failure(model.generate({ messages: question, tools: [] }));
    expect(ModelError.isInstance(failed) && failed.kind).toBe('server');
    expect(String((failed as Error).message)).toContain(`at ${endpoint.url}, model gpt-5-mini`);
    expect(String((failed as Error).message)).not.toContain(apiKey);
    const limited = await failure(model.generate({ messages: question, tools: [] }));
    expect(ModelError.isInstance(limited) && limited.kind).toBe('rate_limited');
    const cut = await failure(model.generate({ messages: question, tools: [] }));
    expect(ModelError.isInstance(cut) && cut.kind).toBe('response');
    expect((cut as Error).message).toContain('ended before response.completed');
  });

  it('does not retry a 401 and never shows the key', async () => {
    const endpoint = await serve([
      { kind: 'error', status: 401, body: { error: { message: `Incorrect API key provided: ${apiKey}` } } },
    ]);
    const model = new ResilientModel({
      primary: responsesModel(endpoint),
      policy: fast,
      semaphore: new ModelSemaphore({ limit: 4 }),
    });
    const error = await failure(model.generate({ messages: question, tools: [] }));
    expect(ModelError.isInstance(error) && error.kind).toBe('authentication');
    expect((error as Error).message).not.toContain(apiKey);
    expect(endpoint.requests).toHaveLength(1);
  });

  it('with store and previousResponseId, names the previous response and sends only what came after it', async () => {
    const endpoint = await serve([
      {
        kind: 'response',
        toolCalls: [{ id: 'call_s', name: 'query_order', arguments: '{"order_id":"SO20260901"}' }],
        reasoning: {},
      },
      { kind: 'response', text: 'Shipped.' },
    ]);
    const result = await runAgent({
      model: responsesModel(endpoint, { store: true, previousResponseId: true }),
      tools: orderTools(),
      messages: question,
    });
    expect(result.text).toBe('Shipped.');
    expect(bodyOf(endpoint, 0)).toMatchObject({ store: true });
    expect(bodyOf(endpoint, 0)['include']).toBeUndefined();
    expect(bodyOf(endpoint, 0)['previous_response_id']).toBeUndefined();
    expect(bodyOf(endpoint, 1)).toMatchObject({
      store: true,
      previous_response_id: 'resp_fake_0',
      input: [
        { type: 'function_call_output', call_id: 'call_s', output: '{"order_id":"SO20260901","status":"shipped"}' },
      ],
    });
  });

  it('reads one non-streamed response object when the server ignores stream: true', async () => {
    const endpoint = await serve((request) => ({
      kind: 'json',
      body: {
        id: 'resp_json',
        object: 'response',
        status: 'completed',
        model: (request.body as { model: string }).model,
        output: [
          {
            id: 'msg_1',
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: 'Shipped.', annotations: [] }],
          },
          {
            id: 'fc_1',
            type: 'function_call',
            call_id: 'call_j',
            name: 'track_shipment',
            arguments: '{"order_id":"SO20260901"}',
            status: 'completed',
          },
        ],
        usage: { input_tokens: 7, output_tokens: 3, total_tokens: 10, input_tokens_details: { cached_tokens: 0 } },
      },
    }));
    const deltas: string[] = [];
    const response = await responsesModel(endpoint).generate({
      messages: question,
      tools: [],
      onTextDelta: (text) => deltas.push(text),
    });
    expect(deltas).toEqual(['Shipped.']);
    expect(response).toMatchObject({
      finishReason: 'tool_calls',
      usage: { inputTokens: 7, outputTokens: 3, cachedInputTokens: 0 },
      message: {
        content: 'Shipped.',
        tool_calls: [{ id: 'call_j', function: { name: 'track_shipment' } }],
        response_id: 'resp_json',
      },
    });
  });

  it("rejects with the caller's abort reason mid-stream, not with a ModelError", async () => {
    const endpoint = await serve([
      { kind: 'response', text: 'a long answer that streams slowly', textChunkSize: 2, chunkDelayMs: 30 },
    ]);
    const controller = new AbortController();
    const reason = new Error('user left');
    const promise = responsesModel(endpoint).generate({
      messages: question,
      tools: [],
      signal: controller.signal,
      onTextDelta: () => controller.abort(reason),
    });
    expect(await failure(promise)).toBe(reason);
  });
});

describe('ARBITER_API', () => {
  const environment = (baseUrl: string, api?: string) => ({
    ARBITER_BASE_URL: baseUrl,
    ARBITER_API_KEY: apiKey,
    ARBITER_MODEL: 'gpt-5-mini',
    ...(api === undefined ? {} : { ARBITER_API: api }),
  });

  it('=responses makes the configured model speak the Responses API behind the resilient policies', async () => {
    const endpoint = await serve([
      { kind: 'error', status: 503 },
      { kind: 'response', text: 'Via responses.' },
    ]);
    const model = createConfiguredModel({ env: environment(endpoint.url, 'responses'), policy: fast });
    const response = await model.generate({ messages: question, tools: [] });
    expect(response.message.content).toBe('Via responses.');
    expect(endpoint.requests.map((request) => request.path)).toEqual(['/v1/responses', '/v1/responses']);
  });

  it('=chat, or unset, keeps Chat Completions', async () => {
    const endpoint = await serve([
      { kind: 'answer', text: 'Via chat.' },
      { kind: 'answer', text: 'Via chat again.' },
    ]);
    for (const api of ['chat', undefined]) {
      const model = createConfiguredModel({ env: environment(endpoint.url, api), policy: fast });
      expect((await model.generate({ messages: question, tools: [] })).message.content).toMatch(/^Via chat/);
    }
    expect(endpoint.requests.map((request) => request.path)).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
  });

  it('rejects any other value with a configuration error naming both choices', () => {
    for (const value of ['Responses', 'completions', 'responses,chat']) {
      let caught: unknown;
      try {
        createConfiguredModel({ env: environment('http://127.0.0.1:9/v1', value) });
      } catch (error) {
        caught = error;
      }
      expect(ConfigurationError.isInstance(caught)).toBe(true);
      expect((caught as ConfigurationError).setting).toBe('ARBITER_API');
      expect((caught as Error).message).toBe(
        `ARBITER_API must be "chat" (Chat Completions, the default) or "responses" (the Responses API), not "${value}"`,
      );
    }
  });
});

describe('OpenAiResponsesModel against hostile or sloppy streams', () => {
  it('calls a malformed event a response error, which the resilient model retries', async () => {
    const endpoint = await serve([
      {
        kind: 'chunks',
        chunks: [{ type: 'response.output_text.delta', item_id: 'msg_1', delta: { text: 'not a string' } }],
      },
      { kind: 'chunks', chunks: ['{"type": "response.output_text.delta", "delta": "broken'] },
      { kind: 'chunks', chunks: [{ no_type: true }] },
      { kind: 'response', text: 'Recovered.' },
    ]);
    const direct = await failure(responsesModel(endpoint).generate({ messages: question, tools: [] }));
    expect(ModelError.isInstance(direct) && direct.kind).toBe('response');
    expect((direct as Error).message).toContain('response.output_text.delta.delta is not a string');
    const decisions: ModelDecision[] = [];
    const model = new ResilientModel({
      primary: responsesModel(endpoint),
      policy: { ...fast, maxAttempts: 3 },
      semaphore: new ModelSemaphore({ limit: 4 }),
      onDecision: (decision) => decisions.push(decision),
    });
    const response = await model.generate({ messages: question, tools: [] });
    expect(response.message.content).toBe('Recovered.');
    expect(decisions.map((decision) => [decision.kind, decision.errorKind])).toEqual([
      ['retry', 'response'],
      ['retry', 'response'],
    ]);
  });

  it('does not count a function call twice when a server sends items without ids and repeats them at the end', async () => {
    const item = {
      type: 'function_call',
      call_id: 'call_noid',
      name: 'query_order',
      arguments: '{"order_id":"SO20260901"}',
    };
    const endpoint = await serve([
      {
        kind: 'chunks',
        chunks: [
          { type: 'response.output_item.done', output_index: 0, item },
          { type: 'response.completed', response: { id: 'resp_n', status: 'completed', output: [item] } },
        ],
      },
    ]);
    const response = await responsesModel(endpoint).generate({ messages: question, tools: [] });
    expect(response.message.tool_calls).toEqual([
      { id: 'call_noid', type: 'function', function: { name: 'query_order', arguments: '{"order_id":"SO20260901"}' } },
    ]);
  });

  it('refuses a function call that never got a name, instead of running something', async () => {
    const endpoint = await serve([
      {
        kind: 'chunks',
        chunks: [
          {
            type: 'response.output_item.added',
            output_index: 0,
            item: { id: 'fc_1', type: 'function_call', call_id: 'c', arguments: '' },
          },
          { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 0, delta: '{}' },
          { type: 'response.completed', response: { id: 'resp_q', status: 'completed', output: [] } },
        ],
      },
    ]);
    const error = await failure(responsesModel(endpoint).generate({ messages: question, tools: [] }));
    expect(ModelError.isInstance(error) && error.kind).toBe('response');
    expect((error as Error).message).toContain('function call 1 has no name');
  });
});
