import { inspect } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChatMessage } from '../core/chat-message.js';
import { ModelError } from '../errors/model-error.js';
import type { ModelDecision } from './model-decision.js';
import { ModelSemaphore } from './model-semaphore.js';
import { OpenAiModel } from './openai-model.js';
import { ResilientModel } from './resilient-model.js';
import type { RetryPolicyOptions } from './retry-policy.js';
import { type FakeChatServer, type FakeResponder, startFakeChatServer } from './test-support/fake-chat-server.js';

const apiKey = 'sk-arbiter-LEAKCHECK-7d3f9b21e6';
const messages: ChatMessage[] = [{ role: 'user', content: 'Where is order SO20260901?' }];
const fast: RetryPolicyOptions = { baseDelayMs: 5, maxDelayMs: 20 };

let server: FakeChatServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

function modelIdOf(body: unknown): string {
  return typeof body === 'object' && body !== null && 'model' in body ? String(body.model) : '';
}

async function setup({
  respond,
  fallback = false,
  policy = fast,
  timeoutMs,
}: {
  respond: FakeResponder;
  fallback?: boolean;
  policy?: RetryPolicyOptions;
  timeoutMs?: number;
}) {
  server = await startFakeChatServer({ respond });
  const decisions: ModelDecision[] = [];
  const openAi = (model: string) =>
    new OpenAiModel({ baseUrl: server?.url ?? '', apiKey, model, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
  const model = new ResilientModel({
    primary: openAi('gpt-4o'),
    ...(fallback ? { fallback: openAi('gpt-4o-mini') } : {}),
    policy,
    semaphore: new ModelSemaphore({ limit: 4 }),
    onDecision: (decision) => decisions.push(decision),
  });
  return { server, model, decisions };
}

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!ModelError.isInstance(error)) throw new Error(`expected a ModelError, got ${String(error)}`);
  return error;
}

describe('ResilientModel over the network', () => {
  it('retries a connection reset and returns the one result', async () => {
    const { server, model, decisions } = await setup({
      respond: [{ kind: 'reset' }, { kind: 'answer', text: 'It shipped.' }],
    });
    const response = await model.generate({ messages, tools: [] });
    expect(response.message.content).toBe('It shipped.');
    expect(server.requests).toHaveLength(2);
    expect(decisions.map(({ kind, errorKind, attempt }) => [kind, errorKind, attempt])).toEqual([
      ['retry', 'network', 1],
    ]);
  });

  it('waits the whole Retry-After of a 429 (1 s, not earlier) before trying again', async () => {
    const arrivals: number[] = [];
    const { model, decisions } = await setup({
      respond: (_request, index) => {
        arrivals.push(performance.now());
        return index === 0
          ? { kind: 'error', status: 429, headers: { 'retry-after': '1' } }
          : { kind: 'answer', text: 'ok' };
      },
    });
    const response = await model.generate({ messages, tools: [] });
    expect(response.message.content).toBe('ok');
    const [first = 0, second = 0] = arrivals;
    expect(second - first).toBeGreaterThanOrEqual(1_000);
    expect(second - first).toBeLessThan(2_500);
    expect(decisions).toMatchObject([{ kind: 'wait', errorKind: 'rate_limited', status: 429, delayMs: 1_000 }]);
  });

  it('switches to the fallback model after 503 three times and reports it', async () => {
    const { server, model, decisions } = await setup({
      fallback: true,
      respond: (request) =>
        modelIdOf(request.body) === 'gpt-4o'
          ? { kind: 'error', status: 503 }
          : { kind: 'answer', text: 'Answered by the fallback.' },
    });
    const response = await model.generate({ messages, tools: [] });
    expect(response.message.content).toBe('Answered by the fallback.');
    expect(response.model).toBe('gpt-4o-mini');
    expect(server.requests.map((request) => modelIdOf(request.body))).toEqual([
      'gpt-4o',
      'gpt-4o',
      'gpt-4o',
      'gpt-4o-mini',
    ]);
    expect(decisions.map(({ kind, status, attempt, nextModel }) => ({ kind, status, attempt, nextModel }))).toEqual([
      { kind: 'retry', status: 503, attempt: 1, nextModel: undefined },
      { kind: 'retry', status: 503, attempt: 2, nextModel: undefined },
      { kind: 'fallback', status: 503, attempt: 3, nextModel: 'gpt-4o-mini' },
    ]);
  });

  it('does not retry a 401, and says which endpoint and model refused, never the key', async () => {
    const { server, model, decisions } = await setup({
      fallback: true,
      respond: [{ kind: 'error', status: 401, body: { error: { message: `Incorrect API key provided: ${apiKey}` } } }],
    });
    const error = await failure(model.generate({ messages, tools: [] }));
    expect(server.requests).toHaveLength(1);
    expect(error.kind).toBe('authentication');
    expect(error.message).toBe(`the endpoint refused the API key (401) at ${server.url}, model gpt-4o`);
    expect(decisions).toMatchObject([{ kind: 'give_up', reason: 'not_retryable', status: 401 }]);
  });

  it('retries a tool call cut off by finish_reason length once, with a higher max_tokens', async () => {
    const { server, model, decisions } = await setup({
      respond: [
        {
          kind: 'answer',
          toolCalls: [{ name: 'write_note', arguments: '{"text":"The parcel left Shenzh' }],
          finishReason: 'length',
        },
        { kind: 'answer', toolCalls: [{ name: 'write_note', arguments: '{"text":"Parcel left."}' }] },
      ],
    });
    const response = await model.generate({ messages, tools: [] });
    expect(response.message.tool_calls?.[0]?.function.arguments).toBe('{"text":"Parcel left."}');
    expect(response.usage).toMatchObject({ inputTokens: 20, outputTokens: 10 });
    expect(server.requests.map((request) => (request.body as Record<string, unknown>)['max_tokens'])).toEqual([
      undefined,
      8_192,
    ]);
    expect(decisions).toMatchObject([{ kind: 'expand_output', errorKind: 'truncated', maxOutputTokens: 8_192 }]);
  });

  it('never lets the key or the authorization header reach an error, a decision or a log line', async () => {
    const bearer = `Bearer ${apiKey}`;
    const echo = `key ${apiKey}, header ${bearer}`;
    const scenarios: FakeResponder[] = [
      [{ kind: 'error', status: 401, body: { error: { message: `Incorrect API key provided: ${apiKey}` } } }],
      [{ kind: 'error', status: 403, body: `forbidden for ${echo}` }],
      [{ kind: 'error', status: 400, body: { error: { message: `bad request, ${echo}` } } }],
      [{ kind: 'error', status: 404, body: { error: { message: `no model for ${echo}` } } }],
      Array.from({ length: 3 }, () => ({ kind: 'error', status: 500, body: `upstream said ${echo}` }) as const),
      Array.from({ length: 3 }, () => ({
        kind: 'error' as const,
        status: 429,
        headers: { 'retry-after': '0', 'x-echo-authorization': bearer },
        body: { error: { message: `slow down ${echo}` } },
      })),
      Array.from({ length: 3 }, () => ({ kind: 'reset' }) as const),
      Array.from({ length: 3 }, () => ({ kind: 'chunks', chunks: [`{"oops": "${echo}"`] }) as const),
      Array.from({ length: 3 }, () => ({ kind: 'hang' }) as const),
    ];
    const logged: string[] = [];
    const capture =
      (stream: string) =>
      (...parts: unknown[]) => {
        logged.push(`${stream}: ${parts.map((part) => (part instanceof Error ? part.stack : String(part))).join(' ')}`);
      };
    const spies = (['log', 'info', 'warn', 'error', 'debug', 'trace'] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation(capture(method)),
    );
    const texts: string[] = [];
    try {
      for (const respond of scenarios) {
        const { model, decisions } = await setup({ respond, timeoutMs: 200 });
        const error = await failure(model.generate({ messages, tools: [] }));
        await server?.close();
        server = undefined;
        // What console.error(error) would print: message, stack, fields and the whole cause chain.
        texts.push(error.message, inspect(error, { depth: 10 }), JSON.stringify(decisions));
        expect(decisions.at(-1)?.kind).toBe('give_up');
      }
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    texts.push(...logged);
    expect(texts.length).toBe(scenarios.length * 3);
    for (const text of texts) {
      expect(text).not.toContain(apiKey);
      expect(text).not.toContain(apiKey.slice(3, 20));
    }
  });
});
