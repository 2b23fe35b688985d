import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChatMessage } from '../core/chat-message.js';
import type { ToolSpec } from '../core/tool-spec.js';
import { ModelError } from '../errors/model-error.js';
import type { ModelRequest } from './model.js';
import { hasModelConfig, readModelConfig } from './model-config.js';
import { OpenAiModel, type OpenAiModelOptions, parseRetryAfter } from './openai-model.js';
import { type FakeChatServer, type FakeResponder, startFakeChatServer } from './test-support/fake-chat-server.js';

const apiKey = 'sk-test-SECRET-4f9a2c';
const modelId = 'gpt-4o-mini';
const messages: ChatMessage[] = [
  { role: 'system', content: 'You are the shop assistant.' },
  { role: 'user', content: 'Where is order SO20260901?' },
];
const queryOrder: ToolSpec = {
  type: 'function',
  function: {
    name: 'query_order',
    description: 'Look up one order by number. Not for shipments: use track_shipment.',
    parameters: {
      type: 'object',
      properties: { order_id: { type: 'string', pattern: '^SO\\d{8}$', examples: ['SO20260901'] } },
      required: ['order_id'],
      additionalProperties: false,
    },
  },
};
const trackShipment: ToolSpec = {
  type: 'function',
  function: {
    name: 'track_shipment',
    description: 'Where a parcel is. Not for order status: use query_order.',
    parameters: { type: 'object', properties: { tracking_id: { type: 'string' } }, required: ['tracking_id'] },
  },
};

let server: FakeChatServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(respond: FakeResponder, options: Partial<OpenAiModelOptions> = {}) {
  server = await startFakeChatServer({ respond });
  const model = new OpenAiModel({ baseUrl: server.url, apiKey, model: modelId, ...options });
  return { server, model };
}

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return { messages, tools: [], ...overrides };
}

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!ModelError.isInstance(error)) throw new Error(`expected a ModelError, got ${String(error)}`);
  return error;
}

describe('OpenAiModel', () => {
  it('forwards text deltas in order and returns the whole message when the answer is text', async () => {
    const { model } = await setup([{ kind: 'answer', text: 'Order SO20260901 ships today.', textChunkSize: 6 }]);
    const deltas: string[] = [];

    const response = await model.generate(request({ onTextDelta: (text) => deltas.push(text) }));

    expect(deltas).toEqual(['Order ', 'SO2026', '0901 s', 'hips t', 'oday.']);
    expect(response).toEqual({
      message: { role: 'assistant', content: 'Order SO20260901 ships today.' },
      usage: { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0 },
      finishReason: 'stop',
    });
    expect(model.name).toBe(modelId);
  });

  it('streams with usage and omits tools when no tools are given', async () => {
    const { server, model } = await setup([{ kind: 'answer', text: 'hi' }]);

    await model.generate(request());

    const [received] = server.requests;
    expect(received?.path).toBe('/v1/chat/completions');
    expect(received?.body).toEqual({
      model: modelId,
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(received?.headers['authorization']).toBe(`Bearer ${apiKey}`);
  });

  it('sends exactly the given tool specs and the whole conversation when tools are given', async () => {
    const { server, model } = await setup([{ kind: 'answer', text: 'ok' }]);
    const conversation: ChatMessage[] = [
      ...messages,
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'query_order', arguments: '{"order_id":"SO20260901"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"ok":true,"data":{"status":"shipped"}}' },
    ];

    await model.generate({ messages: conversation, tools: [queryOrder, trackShipment] });

    const body = server.requests[0]?.body as Record<string, unknown>;
    expect(body['tools']).toEqual([queryOrder, trackShipment]);
    expect(body['messages']).toEqual(conversation);
  });

  it('adds extraBody fields without letting them override the core fields', async () => {
    const { server, model } = await setup([{ kind: 'answer', text: 'ok' }], {
      extraBody: { temperature: 0, stream: false, model: 'other-model', parallel_tool_calls: true },
    });

    await model.generate(request());

    expect(server.requests[0]?.body).toMatchObject({
      model: modelId,
      stream: true,
      temperature: 0,
      parallel_tool_calls: true,
    });
  });

  it('returns one whole tool call when the model calls one tool', async () => {
    const { model } = await setup([
      {
        kind: 'answer',
        toolCalls: [{ id: 'call_9', name: 'query_order', arguments: '{"order_id":"SO20260901"}' }],
        argumentChunkSize: 4,
      },
    ]);
    const onTextDelta = vi.fn();

    const response = await model.generate(request({ tools: [queryOrder], onTextDelta }));

    expect(onTextDelta).not.toHaveBeenCalled();
    expect(response).toEqual({
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_9', type: 'function', function: { name: 'query_order', arguments: '{"order_id":"SO20260901"}' } },
        ],
      },
      usage: { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0 },
      finishReason: 'tool_calls',
    });
  });

  it('assembles three calls when they stream interleaved with arguments split mid-escape', async () => {
    const toolCalls = [
      { id: 'call_a', name: 'query_order', arguments: '{"order_id":"SO20260901","note":"d\\u00e9j\\u00e0 vu"}' },
      { id: 'call_b', name: 'track_shipment', arguments: '{"tracking_id":"1Z\\u00e9\\"x\\""}' },
      { id: 'call_c', name: 'query_order', arguments: '{"order_id":"SO20260902"}' },
    ];
    const { model } = await setup([{ kind: 'answer', toolCalls, argumentChunkSize: 3, interleave: true }]);

    const response = await model.generate(request({ tools: [queryOrder, trackShipment] }));

    expect(response.message.tool_calls).toEqual(
      toolCalls.map(({ id, name, arguments: text }) => ({ id, type: 'function', function: { name, arguments: text } })),
    );
    expect(JSON.parse(response.message.tool_calls?.[1]?.function.arguments ?? '')).toEqual({ tracking_id: '1Zé"x"' });
  });

  it('reads cached tokens when the final chunk reports them', async () => {
    const { model } = await setup([
      { kind: 'answer', text: 'ok', usage: { promptTokens: 2048, completionTokens: 12, cachedTokens: 1536 } },
    ]);

    const { usage } = await model.generate(request());

    expect(usage).toEqual({ inputTokens: 2048, outputTokens: 12, cachedInputTokens: 1536 });
  });

  it.each([
    ['length', 'length'],
    ['content_filter', 'content_filter'],
    ['something_new', 'other'],
  ] as const)('maps finish_reason %s to %s', async (wire, expected) => {
    const { model } = await setup([{ kind: 'answer', text: 'partial', finishReason: wire }]);

    const { finishReason } = await model.generate(request());

    expect(finishReason).toBe(expected);
  });

  it('accepts a non-streamed JSON answer when a server ignores stream: true', async () => {
    const { model } = await setup([
      {
        kind: 'json',
        body: {
          id: 'chatcmpl-1',
          object: 'chat.completion',
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: 'Checking.',
                tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'query_order', arguments: '{}' } }],
              },
              finish_reason: 'tool_calls',
            },
          ],
          usage: { prompt_tokens: 7, completion_tokens: 3 },
        },
      },
    ]);
    const deltas: string[] = [];

    const response = await model.generate(request({ onTextDelta: (text) => deltas.push(text) }));

    expect(deltas).toEqual(['Checking.']);
    expect(response).toEqual({
      message: {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'query_order', arguments: '{}' } }],
      },
      usage: { inputTokens: 7, outputTokens: 3 },
      finishReason: 'tool_calls',
    });
  });

  it('uses the given fetch when one is passed', async () => {
    const calls: string[] = [];
    const { model } = await setup([{ kind: 'answer', text: 'ok' }], {
      fetch: (input, init) => {
        calls.push(String(input));
        return fetch(input, init);
      },
    });

    await model.generate(request());

    expect(calls).toEqual([`${server?.url}/chat/completions`]);
  });
});

describe('OpenAiModel errors', () => {
  it.each([
    [400, 'request'],
    [404, 'request'],
    [422, 'request'],
    [401, 'authentication'],
    [403, 'authentication'],
    [408, 'timeout'],
    [429, 'rate_limited'],
    [500, 'server'],
    [502, 'server'],
    [503, 'server'],
  ] as const)('rejects with a ModelError when the endpoint answers %i → %s', async (status, kind) => {
    const { model } = await setup([{ kind: 'error', status }]);

    const error = await failure(model.generate(request()));

    expect({ kind: error.kind, status: error.status, code: error.code }).toEqual({
      kind,
      status,
      code: 'model_call_failed',
    });
  });

  it('names the endpoint and model but never the key when the key is refused', async () => {
    const { server, model } = await setup([
      {
        kind: 'error',
        status: 401,
        headers: { 'www-authenticate': `Bearer realm="${apiKey}"` },
        body: { error: { message: `Incorrect API key provided: ${apiKey} (Authorization: Bearer ${apiKey})` } },
      },
    ]);

    const error = await failure(model.generate(request()));

    expect(error.message).toContain(server.url);
    expect(error.message).toContain(modelId);
    expect(error.message).not.toContain(apiKey);
    expect(error.message).not.toContain('SECRET');
    expect(error.message).not.toMatch(/bearer/i);
    expect(error.message.replace(server.url, '<base-url>')).toMatchInlineSnapshot(
      `"the endpoint refused the API key (401) at <base-url>, model gpt-4o-mini"`,
    );
  });

  it('passes the endpoint’s explanation on, with the key redacted, when a request is rejected', async () => {
    const { server, model } = await setup([
      {
        kind: 'error',
        status: 400,
        body: { error: { message: `Invalid schema for function 'query_order' (key ${apiKey}, Bearer ${apiKey})` } },
      },
    ]);

    const error = await failure(model.generate(request({ tools: [queryOrder] })));

    expect(error.message.replace(server.url, '<base-url>')).toMatchInlineSnapshot(
      `"the endpoint rejected the request (400) at <base-url>, model gpt-4o-mini: Invalid schema for function 'query_order' (key [redacted], [redacted])"`,
    );
  });

  it.each([
    ['user info', 'http://proxy-user:proxy-pass@127.0.0.1:9/v1'],
    ['a query', 'http://127.0.0.1:9/v1?token=abc'],
  ])('refuses a base URL carrying %s without echoing it', (_case, baseUrl) => {
    const error = catchSync(() => new OpenAiModel({ baseUrl, apiKey, model: modelId }));

    expect(ModelError.isInstance(error) && error.kind).toBe('request');
    expect((error as Error).message).toBe(
      'the model base URL http://127.0.0.1:9/v1 must not carry user info, a query or a fragment; pass the key as apiKey',
    );
  });

  it.each([
    ['seconds', { 'retry-after': '2' }, 2000],
    ['fractional seconds', { 'retry-after': '0.25' }, 250],
    ['retry-after-ms', { 'retry-after-ms': '1500', 'retry-after': '9' }, 1500],
  ])('reads retryAfterMs from %s when the endpoint answers 429', async (_case, headers, expected) => {
    const { model } = await setup([{ kind: 'error', status: 429, headers }]);

    const error = await failure(model.generate(request()));

    expect(error.kind).toBe('rate_limited');
    expect(error.retryAfterMs).toBe(expected);
    expect(error.message).toContain(`retry after ${expected} ms`);
  });

  it('words a rate limit with its wait and the endpoint’s explanation when the endpoint answers 429', async () => {
    const { server, model } = await setup([
      {
        kind: 'error',
        status: 429,
        headers: { 'retry-after': '20' },
        body: { error: { message: 'Rate limit reached for requests per min', type: 'requests' } },
      },
    ]);

    const error = await failure(model.generate(request()));

    expect(error.message.replace(server.url, '<base-url>')).toMatchInlineSnapshot(
      `"the endpoint rate-limited the request (429), retry after 20000 ms at <base-url>, model gpt-4o-mini: Rate limit reached for requests per min"`,
    );
  });

  it('leaves the text alone when the key is a short placeholder such as ollama', async () => {
    const { model } = await setup(
      [{ kind: 'error', status: 404, body: { error: { message: 'model "qwen3" not found, try ollama pull qwen3' } } }],
      { apiKey: 'ollama', model: 'qwen3' },
    );

    const error = await failure(model.generate(request()));

    expect(error.message).toContain('try ollama pull qwen3');
  });

  it('reads retryAfterMs from an HTTP date when the endpoint answers 429', async () => {
    const retryAt = new Date(Date.now() + 30_000);
    retryAt.setMilliseconds(0);
    const { model } = await setup([{ kind: 'error', status: 429, headers: { 'retry-after': retryAt.toUTCString() } }]);

    const error = await failure(model.generate(request()));

    expect(error.retryAfterMs).toBeGreaterThan(27_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(30_000);
  });

  it('leaves retryAfterMs undefined when a 429 has no Retry-After', async () => {
    const { model } = await setup([{ kind: 'error', status: 429 }]);

    const error = await failure(model.generate(request()));

    expect(error.retryAfterMs).toBeUndefined();
  });

  it('reports a 429 for an exhausted quota as a request error, not a rate limit to wait out', async () => {
    const { model } = await setup([
      {
        kind: 'error',
        status: 429,
        body: {
          error: {
            message: 'You exceeded your current quota.',
            type: 'insufficient_quota',
            code: 'insufficient_quota',
          },
        },
      },
    ]);

    const error = await failure(model.generate(request()));

    expect(error.kind).toBe('request');
    expect(error.message).toContain('no quota left');
  });

  it('rejects with kind network when nothing listens at the base URL', async () => {
    const closed = await startFakeChatServer({ respond: [] });
    await closed.close();
    const model = new OpenAiModel({ baseUrl: closed.url, apiKey, model: modelId });

    const error = await failure(model.generate(request()));

    expect(error.kind).toBe('network');
    expect(error.message).toContain(closed.url);
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('rejects with kind network when the server resets the connection before answering', async () => {
    const { model } = await setup([{ kind: 'reset' }]);

    const error = await failure(model.generate(request()));

    expect(error.kind).toBe('network');
  });

  it('rejects with kind network when the connection resets mid-stream', async () => {
    const { model } = await setup([
      { kind: 'answer', text: 'Hello there, friend', textChunkSize: 2, resetAfterChunks: 3 },
    ]);
    const deltas: string[] = [];

    const error = await failure(model.generate(request({ onTextDelta: (text) => deltas.push(text) })));

    expect(error.kind).toBe('network');
    // Chunks that arrive together with the reset may be dropped by the HTTP client.
    expect('Hell'.startsWith(deltas.join(''))).toBe(true);
  });

  it('rejects with kind timeout when the endpoint never answers', async () => {
    const { model } = await setup([{ kind: 'hang' }], { timeoutMs: 100 });

    const error = await failure(model.generate(request()));

    expect(error.kind).toBe('timeout');
    expect(error.message).toContain('within 100 ms');
  });

  it('rejects with kind timeout when the stream stalls between chunks', async () => {
    const { model } = await setup([{ kind: 'answer', text: 'slow answer', chunkDelayMs: 2000 }], { timeoutMs: 150 });

    const error = await failure(model.generate(request()));

    expect(error.kind).toBe('timeout');
  });

  it('does not time out when a long stream keeps sending chunks', async () => {
    // 15 chunks 40 ms apart take 600 ms in all, beyond the 400 ms limit; each gap leaves 360 ms for a loaded machine.
    const { model } = await setup([{ kind: 'answer', text: 'a steady answer', textChunkSize: 1, chunkDelayMs: 40 }], {
      timeoutMs: 400,
    });

    const { message } = await model.generate(request());

    expect(message.content).toBe('a steady answer');
  });

  it('rejects with kind response when a chunk is not JSON', async () => {
    const { server, model } = await setup([{ kind: 'chunks', chunks: ['{"choices": [ {not json'] }]);

    const error = await failure(model.generate(request()));

    expect(error.kind).toBe('response');
    expect(error.message).toContain(server.url);
  });

  it('rejects with kind response when the stream ends without a finish_reason', async () => {
    const { server, model } = await setup([{ kind: 'answer', text: 'cut', finishReason: null, done: false }]);

    const error = await failure(model.generate(request()));

    expect(error.kind).toBe('response');
    expect(error.message.replace(server.url, '<base-url>')).toMatchInlineSnapshot(
      `"malformed chat-completion stream: the stream ended without a finish_reason at <base-url>, model gpt-4o-mini"`,
    );
  });

  it('rejects with kind response when the body is not a chat completion', async () => {
    const { model } = await setup([{ kind: 'json', body: { hello: 'world' } }]);

    const error = await failure(model.generate(request()));

    expect(error.kind).toBe('response');
  });

  it('rejects with kind server when the stream carries an error event', async () => {
    const { model } = await setup([
      { kind: 'chunks', chunks: [{ error: { message: 'The server is overloaded', type: 'server_error' } }] },
    ]);

    const error = await failure(model.generate(request()));

    expect(error.kind).toBe('server');
    expect(error.message).toContain('The server is overloaded');
  });
});

describe('OpenAiModel abort', () => {
  it('rejects with the signal’s AbortError without sending when the signal is already aborted', async () => {
    const { server, model } = await setup([{ kind: 'answer', text: 'never' }]);

    const promise = model.generate(request({ signal: AbortSignal.abort() }));

    await expect(promise).rejects.toMatchObject({ name: 'AbortError' });
    expect(ModelError.isInstance(await promise.catch((error: unknown) => error))).toBe(false);
    expect(server.requests).toHaveLength(0);
  });

  it('rejects with the signal’s reason and closes the stream when aborted mid-stream', async () => {
    const { server, model } = await setup([
      { kind: 'answer', text: 'a long answer that is cut', textChunkSize: 2, chunkDelayMs: 20 },
    ]);
    const controller = new AbortController();
    const deltas: string[] = [];

    const promise = model.generate(
      request({
        signal: controller.signal,
        onTextDelta: (text) => {
          deltas.push(text);
          if (deltas.length === 2) controller.abort();
        },
      }),
    );

    const error = await promise.catch((caught: unknown) => caught);
    expect(error).toBe(controller.signal.reason);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(deltas).toEqual(['a ', 'lo']);
    await vi.waitFor(() => expect(server.requests[0]?.clientDisconnected).toBe(true));
  });

  it('rejects with the caller’s own reason when the caller aborts while waiting for headers', async () => {
    const { model } = await setup([{ kind: 'hang' }]);
    const controller = new AbortController();
    const reason = new Error('user pressed stop');

    const promise = model.generate(request({ signal: controller.signal }));
    setTimeout(() => controller.abort(reason), 30);

    await expect(promise).rejects.toBe(reason);
  });

  it('lets an error thrown by onTextDelta through and stops the stream', async () => {
    const { server, model } = await setup([
      { kind: 'answer', text: 'one two three four', textChunkSize: 4, chunkDelayMs: 20 },
    ]);
    const listenerError = new Error('listener broke');

    const promise = model.generate(
      request({
        onTextDelta: () => {
          throw listenerError;
        },
      }),
    );

    await expect(promise).rejects.toBe(listenerError);
    await vi.waitFor(() => expect(server.requests[0]?.clientDisconnected).toBe(true));
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it.each([
    ['3', 3000],
    [' 1.5 ', 1500],
    ['0', 0],
    ['Thu, 01 Jan 2026 00:00:10 GMT', 10_000],
    ['Wed, 31 Dec 2025 23:59:00 GMT', 0],
    ['soon', undefined],
    ['-1', undefined],
    ['', undefined],
  ])('reads Retry-After %j as %s ms', (value, expected) => {
    expect(parseRetryAfter({ headers: new Headers({ 'retry-after': value }), now })).toBe(expected);
  });

  it('returns undefined when no header is present', () => {
    expect(parseRetryAfter({ headers: new Headers(), now })).toBeUndefined();
  });
});

describe('readModelConfig', () => {
  const complete = { ARBITER_BASE_URL: 'http://localhost:11434/v1', ARBITER_API_KEY: apiKey, ARBITER_MODEL: 'qwen3' };

  it('returns base URL, key and model when all three variables are set', () => {
    expect(readModelConfig({ ...complete, ARBITER_MODEL: ' qwen3 ' })).toEqual({
      baseUrl: 'http://localhost:11434/v1',
      apiKey,
      model: 'qwen3',
    });
    expect(hasModelConfig(complete)).toBe(true);
  });

  it('names every missing variable and never a value when variables are missing or empty', () => {
    const error = catchSync(() => readModelConfig({ ARBITER_API_KEY: apiKey, ARBITER_MODEL: '  ' }));

    expect(ModelError.isInstance(error) && error.kind).toBe('request');
    expect((error as Error).message).not.toContain(apiKey);
    expect((error as Error).message).toMatchInlineSnapshot(
      `"model configuration incomplete: set ARBITER_BASE_URL, ARBITER_MODEL (an OpenAI-compatible base URL, its API key and a model id)"`,
    );
    expect(hasModelConfig({ ARBITER_API_KEY: apiKey })).toBe(false);
  });

  it('names only the key variable when just the key is missing', () => {
    const { ARBITER_API_KEY: _key, ...withoutKey } = complete;

    expect(() => readModelConfig(withoutKey)).toThrow(/^model configuration incomplete: set ARBITER_API_KEY \(/);
  });

  it('rejects a base URL that is not http(s) without echoing it', () => {
    const error = catchSync(() => readModelConfig({ ...complete, ARBITER_BASE_URL: `ftp://${apiKey}@host` }));

    expect(ModelError.isInstance(error) && error.kind).toBe('request');
    expect((error as Error).message).not.toContain(apiKey);
    expect((error as Error).message).toContain('ARBITER_BASE_URL must be an http(s) URL');
  });
});

describe('OpenAiModel request body', () => {
  const createShipment: ToolSpec = {
    type: 'function',
    function: {
      name: 'create_shipment',
      description: 'Ship an order. Not for tracking: use track_shipment.',
      parameters: {
        type: 'object',
        properties: { order_id: { type: 'string' }, note: { type: 'string' } },
        required: ['order_id'],
      },
    },
  };
  const setMetadata: ToolSpec = {
    type: 'function',
    function: {
      name: 'set_metadata',
      description: 'Attach free-form metadata.',
      parameters: { type: 'object', properties: { metadata: { type: 'object' } }, required: ['metadata'] },
    },
  };

  it('sends strict tools with strict: true when strict, and a tool it cannot make strict as it is', async () => {
    const { server, model } = await setup([{ kind: 'answer', text: 'ok' }], { strict: true });

    await model.generate(request({ tools: [createShipment, setMetadata] }));

    expect(server.requests[0]?.body).toHaveProperty('tools', [
      {
        type: 'function',
        function: {
          name: 'create_shipment',
          description: 'Ship an order. Not for tracking: use track_shipment.',
          parameters: {
            type: 'object',
            properties: { order_id: { type: 'string' }, note: { type: ['string', 'null'] } },
            required: ['order_id', 'note'],
            additionalProperties: false,
          },
          strict: true,
        },
      },
      { type: 'function', function: { ...setMetadata.function, strict: false } },
    ]);
    expect(model.strictTools).toBe(true);
  });

  it('sends tools byte for byte the same on every call, whatever key order a spec was built with', async () => {
    const { server, model } = await setup(
      Array.from({ length: 3 }, () => ({ kind: 'answer', text: 'ok' }) as const),
      { strict: true },
    );
    const rebuilt: ToolSpec = {
      function: {
        parameters: createShipment.function.parameters,
        description: createShipment.function.description,
        name: createShipment.function.name,
      },
      type: 'function',
    };

    await model.generate(request({ tools: [createShipment, queryOrder] }));
    await model.generate(request({ tools: [createShipment, queryOrder] }));
    await model.generate(request({ tools: [rebuilt, queryOrder] }));

    const sent = server.requests.map((received) =>
      JSON.stringify([
        (received.body as Record<string, unknown>)['tools'],
        (received.body as Record<string, unknown>)['messages'],
      ]),
    );
    expect(new Set(sent).size).toBe(1);
  });

  it('sends maxOutputTokens as max_tokens, or as max_completion_tokens when configured, over extraBody', async () => {
    const { server, model } = await setup([{ kind: 'answer', text: 'ok' }], { extraBody: { max_tokens: 100 } });
    await model.generate(request({ maxOutputTokens: 4096 }));
    expect(server.requests[0]?.body).toMatchObject({ max_tokens: 4096 });

    await server.close();
    const other = await setup(
      [
        { kind: 'answer', text: 'ok' },
        { kind: 'answer', text: 'ok' },
      ],
      {
        outputLimitField: 'max_completion_tokens',
      },
    );
    await other.model.generate(request({ maxOutputTokens: 2048 }));
    await other.model.generate(request());
    expect(other.server.requests[0]?.body).toMatchObject({ max_completion_tokens: 2048 });
    expect(other.server.requests[0]?.body).not.toHaveProperty('max_tokens');
    expect(other.server.requests[1]?.body).not.toHaveProperty('max_completion_tokens');
  });

  it('keeps the raw endpoint error out of the error chain, so a quoted key cannot leak through cause', async () => {
    const { model } = await setup([
      { kind: 'error', status: 500, body: { error: { message: `upstream rejected ${apiKey}` } } },
    ]);

    const error = await failure(model.generate(request()));

    expect(error.message).toContain('upstream rejected [redacted]');
    expect(error.cause).toBeUndefined();
  });
});

function catchSync(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}
