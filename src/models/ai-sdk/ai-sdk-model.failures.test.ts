import { createAnthropic as createAnthropicV3 } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI as createGoogleV3 } from '@ai-sdk/google';
import { createAnthropic as createAnthropicV4 } from 'anthropic-v4';
import { createGoogleGenerativeAI as createGoogleV4 } from 'google-v4';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../core/chat-message.js';
import { ModelError } from '../../errors/model-error.js';
import type { ModelDecision } from '../model-decision.js';
import { ModelSemaphore } from '../model-semaphore.js';
import { ResilientModel } from '../resilient-model.js';
import { type AnthropicReply, startFakeAnthropicServer } from '../test-support/fake-anthropic-server.js';
import { type GeminiReply, startFakeGeminiServer } from '../test-support/fake-gemini-server.js';
import { aiSdkModel } from './ai-sdk-model.js';
import type { AiSdkLanguageModel } from './language-model-spec.js';

type Factory = (settings: { baseURL: string; apiKey: string }) => (modelId: string) => AiSdkLanguageModel;

const anthropicKey = 'sk-ant-api03-secret-key-0123456789';
const googleKey = 'AIzaSyD-secret-google-key-0123456789';
const messages: ChatMessage[] = [{ role: 'user', content: 'Where is SO20260901?' }];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function anthropicModel(create: Factory, respond: readonly AnthropicReply[], apiKey = anthropicKey) {
  const server = await startFakeAnthropicServer({ respond, apiKey: anthropicKey });
  closers.push(() => server.close());
  return { server, model: aiSdkModel(create({ baseURL: server.baseUrl, apiKey })('claude-sonnet-4-5')) };
}

async function googleModel(create: Factory, respond: readonly GeminiReply[], apiKey = googleKey) {
  const server = await startFakeGeminiServer({ respond, apiKey: googleKey });
  closers.push(() => server.close());
  return { server, model: aiSdkModel(create({ baseURL: server.baseUrl, apiKey })('gemini-2.5-flash')) };
}

function failure(promise: Promise<unknown>): Promise<ModelError> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => {
      if (!ModelError.isInstance(error)) throw error;
      return error;
    },
  );
}

/** A resilient model that records its waits instead of sleeping, with its own semaphore. */
function resilient(primary: ConstructorParameters<typeof ResilientModel>[0]['primary'], fallback?: typeof primary) {
  const decisions: ModelDecision[] = [];
  const waits: number[] = [];
  const model = new ResilientModel({
    primary,
    ...(fallback === undefined ? {} : { fallback }),
    policy: { random: () => 0.5 },
    semaphore: new ModelSemaphore({ limit: 4 }),
    onDecision: (decision) => decisions.push(decision),
    sleep: async (ms) => {
      waits.push(ms);
    },
  });
  return { model, decisions, waits };
}

describe.each([
  ['@ai-sdk/anthropic@3 (spec v3)', createAnthropicV3 as unknown as Factory],
  ['@ai-sdk/anthropic@4 (spec v4)', createAnthropicV4 as unknown as Factory],
])('failures of %s, classified for ResilientModel', (_label, create) => {
  it.each([
    [
      { kind: 'error', status: 429, type: 'rate_limit_error', headers: { 'retry-after': '2' } },
      'rate_limited',
      429,
      2000,
    ],
    [{ kind: 'error', status: 529, type: 'overloaded_error' }, 'server', 529, undefined],
    [{ kind: 'error', status: 500, type: 'api_error' }, 'server', 500, undefined],
    [{ kind: 'error', status: 404, type: 'not_found_error' }, 'request', 404, undefined],
    [{ kind: 'stream-error', type: 'overloaded_error' }, 'server', 529, undefined],
    [{ kind: 'reset' }, 'network', undefined, undefined],
    [
      { kind: 'message', text: 'This answer is cut off in the middle.', textChunkSize: 4, resetAfter: 4 },
      'network',
      undefined,
      undefined,
    ],
  ] as const)('turns %j into a ModelError of kind %s', async (reply, kind, status, retryAfterMs) => {
    const { model } = await anthropicModel(create, [reply as AnthropicReply]);
    const error = await failure(model.generate({ messages, tools: [] }));
    expect({ kind: error.kind, status: error.status, retryAfterMs: error.retryAfterMs }).toEqual({
      kind,
      status,
      retryAfterMs,
    });
    expect(error.model).toBe('claude-sonnet-4-5');
    expect(error.message).toMatch(/^.+ at anthropic\.messages.*, model claude-sonnet-4-5/);
  });

  it('gives up on a provider that stops answering after timeoutMs: a timeout, retried by ResilientModel', async () => {
    const server = await startFakeAnthropicServer({
      respond: [{ kind: 'hang' }, { kind: 'hang' }, { kind: 'message', text: 'Back.' }],
      apiKey: anthropicKey,
    });
    closers.push(() => server.close());
    const languageModel = create({ baseURL: server.baseUrl, apiKey: anthropicKey })('claude-sonnet-4-5');
    const started = Date.now();
    const error = await failure(aiSdkModel(languageModel, { timeoutMs: 150 }).generate({ messages, tools: [] }));
    expect(error).toMatchObject({ kind: 'timeout' });
    expect(error.message).toContain('did not answer within 150 ms');
    expect(Date.now() - started).toBeLessThan(5_000);
    const { model, decisions } = resilient(aiSdkModel(languageModel, { timeoutMs: 150 }));
    expect((await model.generate({ messages, tools: [] })).message.content).toBe('Back.');
    expect(decisions.map((decision) => [decision.kind, decision.errorKind])).toEqual([['retry', 'timeout']]);
  });

  it('names a refused key as authentication, without the key or the conversation', async () => {
    const wrongKey = 'sk-ant-api03-wrong-key-9876543210';
    const { model } = await anthropicModel(create, [], wrongKey);
    const error = await failure(model.generate({ messages, tools: [] }));
    expect(error).toMatchObject({ kind: 'authentication', status: 401 });
    expect(error.message).not.toContain(wrongKey);
    expect(error.message).not.toContain('SO20260901');
    expect(error.cause).toBeUndefined();
  });

  it('waits the Retry-After of a 429, retries a 529, and answers, through ResilientModel', async () => {
    const { server, model: primary } = await anthropicModel(create, [
      { kind: 'error', status: 429, type: 'rate_limit_error', headers: { 'retry-after': '3' } },
      { kind: 'error', status: 529, type: 'overloaded_error' },
      { kind: 'message', text: 'It shipped.' },
    ]);
    const { model, decisions, waits } = resilient(primary);
    const response = await model.generate({ messages, tools: [] });
    expect(response.message.content).toBe('It shipped.');
    expect(decisions.map(({ kind, errorKind, status }) => [kind, errorKind, status])).toEqual([
      ['wait', 'rate_limited', 429],
      ['retry', 'server', 529],
    ]);
    expect(waits[0]).toBe(3000);
    expect(server.requests).toHaveLength(3);
  });

  it('never retries a 400, and falls back to another provider when the primary keeps failing with 5xx', async () => {
    const { server: refusing, model: refused } = await anthropicModel(create, [
      { kind: 'error', status: 400, type: 'invalid_request_error' },
    ]);
    const once = resilient(refused);
    expect(await failure(once.model.generate({ messages, tools: [] }))).toMatchObject({ kind: 'request', status: 400 });
    expect(refusing.requests).toHaveLength(1);
    expect(once.decisions.map((decision) => [decision.kind, decision.reason])).toEqual([['give_up', 'not_retryable']]);

    const { model: overloaded } = await anthropicModel(create, [
      { kind: 'error', status: 529, type: 'overloaded_error' },
      { kind: 'error', status: 529, type: 'overloaded_error' },
      { kind: 'error', status: 529, type: 'overloaded_error' },
    ]);
    const { model: gemini } = await googleModel(createGoogleV3 as unknown as Factory, [
      { kind: 'content', text: 'Answered by the fallback.' },
    ]);
    const chain = resilient(overloaded, gemini);
    const response = await chain.model.generate({ messages, tools: [] });
    expect(response).toMatchObject({ message: { content: 'Answered by the fallback.' }, model: 'gemini-2.5-flash' });
    expect(chain.decisions.map((decision) => decision.kind)).toEqual(['retry', 'retry', 'fallback']);
  });
});

describe.each([
  ['@ai-sdk/google@3 (spec v3)', createGoogleV3 as unknown as Factory],
  ['@ai-sdk/google@4 (spec v4)', createGoogleV4 as unknown as Factory],
])('failures of %s, classified for ResilientModel', (_label, create) => {
  it.each([
    [{ kind: 'error', status: 429, retryDelay: '7s' }, 'rate_limited', 429, 7000],
    [{ kind: 'error', status: 429, headers: { 'retry-after': '1' } }, 'rate_limited', 429, 1000],
    [{ kind: 'error', status: 503 }, 'server', 503, undefined],
    [{ kind: 'error', status: 400 }, 'request', 400, undefined],
    [{ kind: 'reset' }, 'network', undefined, undefined],
  ] as const)('turns %j into a ModelError of kind %s', async (reply, kind, status, retryAfterMs) => {
    const { model } = await googleModel(create, [reply as GeminiReply]);
    const error = await failure(model.generate({ messages, tools: [] }));
    expect({ kind: error.kind, status: error.status, retryAfterMs: error.retryAfterMs }).toEqual({
      kind,
      status,
      retryAfterMs,
    });
  });

  it('names a refused key as authentication, without the key', async () => {
    const wrongKey = 'AIzaSyD-wrong-google-key-9876543210';
    const { model } = await googleModel(create, [], wrongKey);
    const error = await failure(model.generate({ messages, tools: [] }));
    expect(error).toMatchObject({ kind: 'authentication', status: 403 });
    expect(error.message).not.toContain(wrongKey);
  });

  it('waits Gemini’s RetryInfo delay, then answers, through ResilientModel', async () => {
    const { model: primary } = await googleModel(create, [
      { kind: 'error', status: 429, retryDelay: '2s' },
      { kind: 'error', status: 503 },
      { kind: 'content', text: 'It shipped.' },
    ]);
    const { model, decisions, waits } = resilient(primary);
    expect((await model.generate({ messages, tools: [] })).message.content).toBe('It shipped.');
    expect(decisions.map((decision) => decision.kind)).toEqual(['wait', 'retry']);
    expect(waits[0]).toBe(2000);
  });
});
