import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runServe } from '../cli/commands/serve.js';
import { InputFileError } from '../errors/input-file-error.js';
import { ServerConfigError } from '../errors/server-config-error.js';
import type { Model } from '../models/model.js';
import type { Script } from '../models/script.js';
import { ScriptedModel } from '../models/scripted-model.js';
import { type AuthConfig, demoTokens, readAuthConfig } from './auth-config.js';
import { createServer } from './create-server.js';
import { startServer } from './start-server.js';
import { readSse } from './test-support/sse-client.js';
import {
  startTestServer,
  type TestServer,
  testAuth,
  testMetricsToken,
  testTokens,
} from './test-support/test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** A GET with a `Host` header of our choosing, as a page whose name was rebound to 127.0.0.1 would send it. */
function getWithHost({
  port,
  path,
  host,
}: {
  port: number;
  path: string;
  host: string;
}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port, path, method: 'GET', headers: { host } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** A model that answers only once `release` is called, so runs (and their streams) stay open. */
function heldModel(): { model: Model; release: () => void } {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    release,
    model: {
      name: 'held',
      generate: async () => {
        await held;
        return {
          message: { role: 'assistant', content: 'Done.' },
          usage: { inputTokens: 1, outputTokens: 1 },
          finishReason: 'stop',
        };
      },
    },
  };
}

async function newSession(token: string): Promise<string> {
  const { status, body } = await (server as TestServer).request('/v1/sessions', { token, method: 'POST' });
  expect(status).toBe(201);
  return body.id as string;
}

async function startRun(token: string, content = 'Where is my order SO20260901?'): Promise<string> {
  const sessionId = await newSession(token);
  const { status, body } = await (server as TestServer).request(`/v1/sessions/${sessionId}/messages`, {
    token,
    method: 'POST',
    body: { content },
  });
  expect(status).toBe(202);
  return body.runId as string;
}

describe('demo mode is for this machine only', () => {
  it.each([
    'evil.example',
    'localhost.evil.example',
    '127.0.0.1.nip.io',
    'evil.example:8787',
    'localhost.:8787',
    '127.0.0.2',
    '[::2]',
  ])('refuses Host %j with 403 host_not_allowed and hands out no token', async (host) => {
    server = await startTestServer({ demoAuth: true });
    for (const path of ['/demo.json', '/', '/v1/me', '/healthz']) {
      const answer = await getWithHost({ port: server.port, path, host });
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'host_not_allowed' } });
      expect(answer.text).not.toContain(demoTokens.approver);
      expect(answer.text).not.toContain(demoTokens.customer);
    }
  });

  it('hands out no token to a request without a Host header', async () => {
    server = await startTestServer({ demoAuth: true });
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const outgoing = httpRequest(
        { host: '127.0.0.1', port: (server as TestServer).port, path: '/demo.json', setHost: false },
        (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => {
            text += chunk.toString('utf8');
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        },
      );
      outgoing.on('error', reject);
      outgoing.end();
    });
    expect(answer.status).not.toBe(200);
    expect(answer.text).not.toContain(demoTokens.approver);
  });

  it('answers localhost, 127.0.0.1 and [::1], with or without a port', async () => {
    server = await startTestServer({ demoAuth: true });
    for (const host of ['localhost', `localhost:${server.port}`, 'LOCALHOST', `127.0.0.1:${server.port}`, '[::1]:80']) {
      const answer = await getWithHost({ port: server.port, path: '/demo.json', host });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.text)).toEqual({
        customerToken: demoTokens.customer,
        approverToken: demoTokens.approver,
      });
    }
  });

  it('refuses to listen on 0.0.0.0, :: or a public address without an auth file, naming the fix', async () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.20', '203.0.113.7']) {
      const attempt = startServer({ port: 0, host, dataDir: ':memory:', onError: () => {} });
      await expect(attempt).rejects.toSatisfy(ServerConfigError.isInstance);
      await expect(attempt).rejects.toThrow(/listens on loopback only .* not on .*; give --auth FILE/);
    }
    await expect(runServe({ args: ['--host', '0.0.0.0', '--data-dir', ':memory:'], write: () => {} })).rejects.toThrow(
      'without an auth file the server listens on loopback only',
    );
  });

  it('listens anywhere and answers any Host with an auth file, where no token is handed out', async () => {
    const running = await startServer({
      port: 0,
      host: '0.0.0.0',
      dataDir: ':memory:',
      auth: testAuth,
      onError: () => {},
    });
    try {
      const me = await getWithHost({ port: running.port, path: '/demo.json', host: 'shop.example' });
      expect(me.status).toBe(404);
    } finally {
      await running.close();
    }
  });

  it('keeps the demo tokens at 32 characters or more', () => {
    expect(demoTokens.customer.length).toBeGreaterThanOrEqual(32);
    expect(demoTokens.approver.length).toBeGreaterThanOrEqual(32);
  });
});

describe('/metrics needs a metrics token or role', () => {
  const metricsAuth: AuthConfig = {
    tokens: [
      ...testAuth.tokens,
      { token: 'shop-prometheus-token-0123456789abcdef', tenantId: 'shop', userId: 'prometheus', roles: ['metrics'] },
    ],
  };
  const get = (token?: string) =>
    fetch(
      `${(server as TestServer).url}/metrics`,
      token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } },
    );

  it('answers 401 without a token or with an unknown one, 403 to a customer', async () => {
    server = await startTestServer({ auth: metricsAuth });
    const anonymous = await get();
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect(await anonymous.json()).toMatchObject({ error: { code: 'unauthenticated' } });
    expect((await get('not-the-metrics-token-0123456789abcdef')).status).toBe(401);
    const customer = await get(testTokens.alice);
    expect(customer.status).toBe(403);
    expect(await customer.json()).toMatchObject({ error: { code: 'forbidden' } });
  });

  it("shows everything to the scrape token and a metrics role only its own tenant's series", async () => {
    server = await startTestServer({ auth: metricsAuth });
    await readSse({ url: `${server.url}/v1/runs/${await startRun(testTokens.alice)}/events`, token: testTokens.alice });
    await readSse({
      url: `${server.url}/v1/runs/${await startRun(testTokens.mallory)}/events`,
      token: testTokens.mallory,
    });

    const all = await (await get(testMetricsToken)).text();
    expect(all).toContain('arbiter_runs_total{tenant="shop",stop_reason="completed"} 1');
    expect(all).toContain('arbiter_runs_total{tenant="other-shop",stop_reason="completed"} 1');
    expect(all).toContain('arbiter_http_request_duration_seconds');

    const own = await get('shop-prometheus-token-0123456789abcdef');
    expect(own.status).toBe(200);
    const text = await own.text();
    expect(text).toContain('arbiter_runs_total{tenant="shop",stop_reason="completed"} 1');
    expect(text).toContain('arbiter_tool_calls_total{tenant="shop",tool="query_order",outcome="ok"} 1');
    expect(text).not.toContain('other-shop');
    expect(text).not.toContain('arbiter_http_request_duration_seconds');
  });

  it('counts tool names a model invents under tool="unknown"', async () => {
    const invented: Script = {
      name: 'invented',
      turns: [
        {
          steps: [
            { call: { name: 'wire_money_abroad_9f3a', arguments: {} } },
            { call: { name: 'drop_all_tables_77', arguments: {} } },
            { say: 'Sorry.' },
          ],
        },
      ],
    };
    server = await startTestServer({ model: new ScriptedModel({ script: invented }) });
    await readSse({
      url: `${server.url}/v1/runs/${await startRun(testTokens.alice, 'hi')}/events`,
      token: testTokens.alice,
    });
    const text = await (await get(testMetricsToken)).text();
    expect(text).not.toMatch(/wire_money_abroad|drop_all_tables/);
    expect(text).toMatch(/arbiter_tool_calls_total\{tenant="shop",tool="unknown",outcome="validation"\} [1-9]/);
  });

  it('refuses a metrics token shorter than 32 characters', () => {
    expect(() => createServer({ dataDir: ':memory:', auth: testAuth, metricsToken: 'short-scrape-token' })).toThrow(
      'the metrics token is 18 characters; it needs at least 32',
    );
  });
});

describe('per-principal limits', () => {
  it('lets one principal hold 10 event streams at once: of 50 opened together 40 get 429 with Retry-After', async () => {
    const { model, release } = heldModel();
    server = await startTestServer({ model });
    const runId = await startRun(testTokens.alice);
    const controller = new AbortController();
    const open = (token: string) =>
      fetch(`${(server as TestServer).url}/v1/runs/${runId}/events`, {
        headers: { authorization: `Bearer ${token}` },
        signal: controller.signal,
      });
    try {
      const attempts = await Promise.all(Array.from({ length: 50 }, () => open(testTokens.alice)));
      const statuses = attempts.map((response) => response.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(10);
      expect(statuses.filter((status) => status === 429)).toHaveLength(40);
      const refused = attempts.find((response) => response.status === 429) as Response;
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(await refused.json()).toEqual({
        error: {
          code: 'too_many_streams',
          message: 'at most 10 event streams may be open at once per user; close one first',
          retryAfterSeconds: 1,
        },
      });
      // The approver of the same tenant has a budget of his own.
      const staff = await open(testTokens.staff);
      expect(staff.status).toBe(200);

      // Closing one of alice's streams gives her the slot back.
      const kept = attempts.filter((response) => response.status === 200);
      await kept[0]?.body?.cancel();
      await vi.waitFor(() => expect(server?.server.metrics.openStreams).toBe(10), { timeout: 5000, interval: 20 });
      expect((await open(testTokens.alice)).status).toBe(200);
      expect((await open(testTokens.alice)).status).toBe(429);
    } finally {
      controller.abort();
      release();
    }
  });

  it('limits sessions created per minute per principal (429, Retry-After), each principal on its own', async () => {
    server = await startTestServer({ principalLimits: { sessionsPerMinute: 3 } });
    for (let index = 0; index < 3; index += 1) await newSession(testTokens.alice);
    const stored = () =>
      (server as TestServer).server.store.database.prepare('SELECT COUNT(*) AS count FROM sessions').get() as {
        count: number;
      };
    expect(stored().count).toBe(3);
    const refused = await fetch(`${server.url}/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${testTokens.alice}` },
    });
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await refused.json()).toEqual({
      error: {
        code: 'too_many_sessions',
        message: 'at most 3 sessions may be created per minute per user',
        retryAfterSeconds: retryAfter,
      },
    });
    expect(stored().count).toBe(3);
    await newSession(testTokens.bob);
    // Same user id, other tenant: not the same principal.
    await newSession(testTokens.mallory);
  });

  it('limits sessions by default: the 21st in a minute is refused', async () => {
    server = await startTestServer();
    for (let index = 0; index < 20; index += 1) await newSession(testTokens.alice);
    const refused = await server.request('/v1/sessions', { token: testTokens.alice, method: 'POST' });
    expect(refused).toMatchObject({ status: 429, body: { error: { code: 'too_many_sessions' } } });
  });

  it('limits messages per minute per principal, and a refused message starts no run', async () => {
    server = await startTestServer({ principalLimits: { messagesPerMinute: 2 } });
    const sessionId = await newSession(testTokens.alice);
    const send = () =>
      (server as TestServer).request(`/v1/sessions/${sessionId}/messages`, {
        token: testTokens.alice,
        method: 'POST',
        body: { content: 'Where is my order SO20260901?' },
      });
    for (let index = 0; index < 2; index += 1) {
      expect((await send()).status).toBe(202);
      await server.server.idle();
    }
    const refused = await send();
    expect(refused).toMatchObject({ status: 429, body: { error: { code: 'too_many_messages' } } });
    expect(server.server.runs.listForSession(sessionId)).toHaveLength(2);
  });

  it('refuses bearer tokens shorter than 32 characters in an auth file, naming the entry but never the token', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'arbiter-auth-'));
    const file = join(directory, 'auth.json');
    const shortToken = 'only-8ch';
    writeFileSync(
      file,
      JSON.stringify({
        tokens: [
          { token: testTokens.alice, tenantId: 'shop', userId: 'C1001', roles: ['customer'] },
          { token: shortToken, tenantId: 'shop', userId: 'S9001', roles: ['approver'] },
        ],
      }),
    );
    try {
      const attempt = readAuthConfig({ file });
      await expect(attempt).rejects.toSatisfy(InputFileError.isInstance);
      const message = await attempt.catch((error: Error) => error.message);
      expect(message).toBe(
        `${file}: tokens[1] (tenant shop, user S9001): token is 8 characters; bearer tokens need at least 32 ` +
          '(e.g. `openssl rand -hex 24`), or give its sha256 as "tokenSha256"',
      );
      expect(message).not.toContain(shortToken);
      await expect(runServe({ args: ['--auth', file, '--data-dir', ':memory:'], write: () => {} })).rejects.toThrow(
        'tokens[1] (tenant shop, user S9001): token is 8 characters',
      );
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('refuses short tokens in an auth configuration given in code as well', () => {
    const weak: AuthConfig = { tokens: [{ token: 'bench-token-0001', tenantId: 't', userId: 'u', roles: [] }] };
    expect(() => createServer({ dataDir: ':memory:', auth: weak })).toThrow(
      'auth tokens[0] (tenant t, user u): token is 16 characters; bearer tokens need at least 32',
    );
  });
});
