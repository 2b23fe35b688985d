import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigurationError } from '../../errors/configuration-error.js';
import { startFakeAnthropicServer } from '../test-support/fake-anthropic-server.js';
import { createProviderModel, readConfiguredProvider } from './create-provider-model.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const close of closers.splice(0)) await close();
});

async function configurationError(promise: Promise<unknown>): Promise<ConfigurationError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!ConfigurationError.isInstance(error)) throw new Error(`expected a ConfigurationError, got ${String(error)}`);
  return error;
}

describe('readConfiguredProvider', () => {
  it('reads the short names, package names and the fallback model; nothing when ARBITER_PROVIDER is unset', () => {
    expect(readConfiguredProvider({ ARBITER_MODEL: 'gpt-4o' })).toBeUndefined();
    expect(readConfiguredProvider({ ARBITER_PROVIDER: ' anthropic ', ARBITER_MODEL: 'claude-sonnet-4-5' })).toEqual({
      packageName: '@ai-sdk/anthropic',
      model: 'claude-sonnet-4-5',
      fallbackModel: undefined,
    });
    expect(
      readConfiguredProvider({
        ARBITER_PROVIDER: '@ai-sdk/mistral',
        ARBITER_MODEL: 'mistral-large-latest',
        ARBITER_FALLBACK_MODEL: 'mistral-small-latest',
      }),
    ).toEqual({ packageName: '@ai-sdk/mistral', model: 'mistral-large-latest', fallbackModel: 'mistral-small-latest' });
  });

  it.each([
    './evil.js',
    '../node_modules/x',
    '/tmp/evil.mjs',
    'file:///tmp/evil.mjs',
    'data:text/javascript,process.exit(9)',
    'https://example.com/evil.js',
    'node:child_process',
    'constructor',
  ])('refuses %s: only a package name is imported', (provider) => {
    const attempt = () => readConfiguredProvider({ ARBITER_PROVIDER: provider, ARBITER_MODEL: 'm' });
    if (provider === 'constructor') {
      // A plain package name (not a short name from the prototype): imported as such, never Object's constructor.
      expect(attempt()?.packageName).toBe('constructor');
      return;
    }
    expect(attempt).toThrow(/ARBITER_PROVIDER must be anthropic, google or the name of an installed AI SDK provider/);
  });

  it('names ARBITER_MODEL when it is missing', () => {
    expect(() => readConfiguredProvider({ ARBITER_PROVIDER: 'google' })).toThrow(
      'ARBITER_PROVIDER=google needs ARBITER_MODEL',
    );
  });
});

describe('createProviderModel', () => {
  it('says in one line which package to install when the provider is not installed', async () => {
    const error = await configurationError(
      createProviderModel({ env: { ARBITER_PROVIDER: '@ai-sdk/not-installed-here', ARBITER_MODEL: 'm' } }),
    );
    expect(error.message).toBe(
      'ARBITER_PROVIDER names @ai-sdk/not-installed-here, which is not installed: npm install @ai-sdk/not-installed-here',
    );
  });

  it('refuses a package that is not an AI SDK provider, and a provider of an older spec', async () => {
    const notProvider = await configurationError(
      createProviderModel({ env: { ARBITER_PROVIDER: 'zod', ARBITER_MODEL: 'm' } }),
    );
    expect(notProvider.message).toBe(
      'ARBITER_PROVIDER: zod exports no AI SDK provider (a function with languageModel)',
    );
    const legacy = Object.assign(() => ({ specificationVersion: 'v2', provider: 'old', modelId: 'm' }), {
      languageModel: () => undefined,
    });
    const old = await configurationError(
      createProviderModel({
        env: { ARBITER_PROVIDER: 'old-provider', ARBITER_MODEL: 'm' },
        importModule: async () => ({ legacy }),
      }),
    );
    expect(old.message).toBe(
      'ARBITER_PROVIDER: old-provider gave no language model of spec v3 or v4 for m (AI SDK 6 or 7 providers)',
    );
  });

  it('uses the provider’s usual variables (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY), with retries and the fallback model', async () => {
    const server = await startFakeAnthropicServer({
      respond: [
        { kind: 'error', status: 529, type: 'overloaded_error' },
        { kind: 'error', status: 529, type: 'overloaded_error' },
        { kind: 'error', status: 529, type: 'overloaded_error' },
        { kind: 'message', text: 'From the fallback.' },
      ],
    });
    closers.push(() => server.close());
    vi.stubEnv('ANTHROPIC_BASE_URL', server.baseUrl);
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-test-key-0000');
    const model = await createProviderModel({
      env: {
        ARBITER_PROVIDER: 'anthropic',
        ARBITER_MODEL: 'claude-opus-4-1',
        ARBITER_FALLBACK_MODEL: 'claude-haiku-4-5',
      },
      policy: { baseDelayMs: 1 },
    });
    const response = await model.generate({ messages: [{ role: 'user', content: 'Hi' }], tools: [] });
    expect(response).toMatchObject({ message: { content: 'From the fallback.' }, model: 'claude-haiku-4-5' });
    expect(server.requests.map((request) => (request.body as { model: string }).model)).toEqual([
      'claude-opus-4-1',
      'claude-opus-4-1',
      'claude-opus-4-1',
      'claude-haiku-4-5',
    ]);
  });

  it('passes ARBITER_BASE_URL and ARBITER_API_KEY to the package’s create function when they are set', async () => {
    const server = await startFakeAnthropicServer({
      respond: [{ kind: 'message', text: 'Hello.' }],
      apiKey: 'sk-ant-gateway-key-1',
    });
    closers.push(() => server.close());
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-should-not-be-used');
    const model = await createProviderModel({
      env: {
        ARBITER_PROVIDER: 'anthropic-v4',
        ARBITER_MODEL: 'claude-sonnet-4-5',
        ARBITER_BASE_URL: server.baseUrl,
        ARBITER_API_KEY: 'sk-ant-gateway-key-1',
      },
    });
    expect((await model.generate({ messages: [{ role: 'user', content: 'Hi' }], tools: [] })).message.content).toBe(
      'Hello.',
    );
    expect(server.requests[0]?.headers['x-api-key']).toBe('sk-ant-gateway-key-1');
  });
});
