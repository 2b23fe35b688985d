import { afterEach, describe, expect, it } from 'vitest';
import { ModelError } from '../errors/model-error.js';
import { createConfiguredModel } from './create-configured-model.js';
import type { ModelDecision } from './model-decision.js';
import { ResilientModel } from './resilient-model.js';
import { type FakeChatServer, startFakeChatServer } from './test-support/fake-chat-server.js';

let endpoint: FakeChatServer | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

const environment = (baseUrl: string, extra: Record<string, string> = {}) => ({
  ARBITER_BASE_URL: baseUrl,
  ARBITER_API_KEY: 'sk-test',
  ARBITER_MODEL: 'gpt-4o',
  ...extra,
});
const fast = { baseDelayMs: 1, maxDelayMs: 2 };
const messages = [{ role: 'user' as const, content: 'Where is SO20260901?' }];

describe('createConfiguredModel', () => {
  it('is the resilient client on the configured endpoint: a 503 is retried and the call succeeds', async () => {
    endpoint = await startFakeChatServer({
      respond: [
        { kind: 'error', status: 503 },
        { kind: 'answer', text: 'It shipped.' },
      ],
    });
    const decisions: ModelDecision[] = [];
    const model = createConfiguredModel({
      env: environment(endpoint.url),
      policy: fast,
      onDecision: (decision) => decisions.push(decision),
    });
    expect(model).toBeInstanceOf(ResilientModel);
    const response = await model.generate({ messages, tools: [] });
    expect(response.message.content).toBe('It shipped.');
    expect(endpoint.requests.map((request) => (request.body as { model: string }).model)).toEqual(['gpt-4o', 'gpt-4o']);
    expect(decisions.map((decision) => [decision.kind, decision.status])).toEqual([['retry', 503]]);
  });

  it('falls back to ARBITER_FALLBACK_MODEL when the model keeps failing', async () => {
    endpoint = await startFakeChatServer({
      respond: (request) =>
        (request.body as { model: string }).model === 'gpt-4o'
          ? { kind: 'error', status: 500 }
          : { kind: 'answer', text: 'From the fallback.' },
    });
    const model = createConfiguredModel({
      env: environment(endpoint.url, { ARBITER_FALLBACK_MODEL: 'gpt-4o-mini' }),
      policy: fast,
    });
    const response = await model.generate({ messages, tools: [] });
    expect(response.message.content).toBe('From the fallback.');
    expect(endpoint.requests.map((request) => (request.body as { model: string }).model)).toEqual([
      'gpt-4o',
      'gpt-4o',
      'gpt-4o',
      'gpt-4o-mini',
    ]);
  });

  it('names the missing variables, never a value', () => {
    expect(() => createConfiguredModel({ env: { ARBITER_API_KEY: 'sk-secret' } })).toThrow(
      'model configuration incomplete: set ARBITER_BASE_URL, ARBITER_MODEL',
    );
    expect(() => createConfiguredModel({ env: {} })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('sk-') }),
    );
    expect(() => createConfiguredModel({ env: {} })).toThrow(ModelError);
  });
});
