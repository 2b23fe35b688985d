import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { checkModelEndpoint } from './check-model-endpoint.js';
import { type FakeChatServer, type FakeModels, startFakeChatServer } from './test-support/fake-chat-server.js';

const apiKey = 'sk-arbiter-CHECKLEAK-7a1f9c';

let endpoint: FakeChatServer | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

/** A port nothing listens on: bound once to learn a free one, then closed. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function serving(models: FakeModels) {
  endpoint = await startFakeChatServer({ respond: [], models });
  return endpoint;
}

describe('checkModelEndpoint', () => {
  it('passes an endpoint that accepts the key and lists the models, with one GET /models carrying the key', async () => {
    const { url, requests } = await serving(['gpt-4o', 'gpt-4o-mini']);
    const check = await checkModelEndpoint({ baseUrl: url, apiKey, models: ['gpt-4o', 'gpt-4o-mini'] });
    expect(check).toEqual({
      status: 'ok',
      message: `model endpoint ${url} (model gpt-4o, gpt-4o-mini): reachable, key accepted, model listed`,
    });
    expect(requests.map((request) => [request.method, request.path, request.headers.authorization])).toEqual([
      ['GET', '/v1/models', `Bearer ${apiKey}`],
    ]);
  });

  it('fails on a closed port, naming URL and model', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
    const check = await checkModelEndpoint({ baseUrl, apiKey, models: ['gpt-4o'] });
    expect(check.status).toBe('failed');
    expect(check.message).toBe(
      `model endpoint ${baseUrl} (model gpt-4o) is unreachable (ECONNREFUSED); check ARBITER_BASE_URL`,
    );
    expect(check.status === 'failed' ? check.error : undefined).toMatchObject({ kind: 'network', model: 'gpt-4o' });
  });

  it('names the cause fetch hides behind "fetch failed", e.g. a port fetch refuses to dial', async () => {
    // Port 9 (discard) is on fetch's list of bad ports: the connection is never tried.
    const baseUrl = 'http://127.0.0.1:9/v1';
    const check = await checkModelEndpoint({ baseUrl, apiKey, models: ['gpt-4o'] });
    expect(check.message).toBe(
      `model endpoint ${baseUrl} (model gpt-4o) is unreachable (bad port); check ARBITER_BASE_URL`,
    );
  });

  it('fails on a refused key without repeating what the endpoint said about it', async () => {
    const { url } = await serving(() => ({
      kind: 'error',
      status: 401,
      body: { error: { message: `Incorrect API key provided: ${apiKey}`, code: 'invalid_api_key' } },
    }));
    const check = await checkModelEndpoint({ baseUrl: url, apiKey, models: ['gpt-4o'] });
    expect(check.message).toBe(`model endpoint ${url} (model gpt-4o) refused the API key (401); check ARBITER_API_KEY`);
    expect(check.status === 'failed' ? check.error : undefined).toMatchObject({ kind: 'authentication', status: 401 });
    expect(JSON.stringify(check)).not.toContain(apiKey);
  });

  it('fails on a model the endpoint does not list, naming the variable to fix', async () => {
    const { url } = await serving(['gpt-4o', 'gpt-4o-mini']);
    const primary = await checkModelEndpoint({ baseUrl: url, apiKey, models: ['gpt-5-typo'] });
    expect(primary.message).toBe(
      `model endpoint ${url} (model gpt-5-typo): the endpoint does not list "gpt-5-typo" (it lists 2, e.g. gpt-4o, gpt-4o-mini); check ARBITER_MODEL`,
    );
    const fallback = await checkModelEndpoint({ baseUrl: url, apiKey, models: ['gpt-4o', 'cheap'] });
    expect(fallback).toMatchObject({ status: 'failed' });
    expect(fallback.message).toMatch(/does not list "cheap" .*; check ARBITER_FALLBACK_MODEL$/);
  });

  it('leaves a model unverified when the endpoint has no model list, and times out on one that never answers', async () => {
    endpoint = await startFakeChatServer({ respond: [] });
    const unlisted = await checkModelEndpoint({ baseUrl: endpoint.url, apiKey, models: ['llama3'] });
    expect(unlisted).toEqual({
      status: 'unverified',
      message: `model endpoint ${endpoint.url} (model llama3): GET /models answered 404, so the model could not be checked`,
    });
    await endpoint.close();
    endpoint = await startFakeChatServer({ respond: [], models: () => ({ kind: 'hang' }) });
    const silent = await checkModelEndpoint({ baseUrl: endpoint.url, apiKey, models: ['gpt-4o'], timeoutMs: 100 });
    expect(silent.message).toBe(
      `model endpoint ${endpoint.url} (model gpt-4o): no answer to GET /models within 100 ms; check ARBITER_BASE_URL`,
    );
  });
});
