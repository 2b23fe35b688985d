import { randomUUID } from 'node:crypto';
import { A2A_VERSION_HEADER } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, testTokens } from '../../test-support/test-server.js';

/**
 * The MUST checks of the A2A conformance kit (a2aproject/a2a-tck, branch
 * 1.0-dev, JSON-RPC binding) that arbiter once failed, ported so CI keeps
 * them: the card read by the official SDK's resolver, errors as JSON-RPC
 * error objects (never arbiter's REST shape), a subscription to a finished
 * task refused before any stream opens.
 */
let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const authorized = (token: string = testTokens.alice) => ({
  authorization: `Bearer ${token}`,
  'content-type': 'application/json',
  [A2A_VERSION_HEADER]: '1.0',
});

async function rpc({
  body,
  path = '/v1/a2a',
  headers = authorized(),
}: {
  body: string;
  path?: string;
  headers?: Record<string, string>;
}): Promise<{ status: number; contentType: string | null; text: string }> {
  const response = await fetch(`${(server as TestServer).url}${path}`, { method: 'POST', headers, body });
  return { status: response.status, contentType: response.headers.get('content-type'), text: await response.text() };
}

const sendMessage = (text: string, id: number | string = 1) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'SendMessage',
    params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] } },
  });

/** A JSON-RPC 2.0 error response: `{ jsonrpc, id, error: { code (an integer), message } }`. */
function expectJsonRpcError(text: string, code: number): { message: string; data?: unknown } {
  const body = JSON.parse(text) as { jsonrpc?: unknown; id?: unknown; error?: { code?: unknown; message?: unknown } };
  expect(body.jsonrpc).toBe('2.0');
  expect(body).toHaveProperty('id');
  expect(body.error?.code).toBe(code);
  expect(typeof body.error?.message).toBe('string');
  return body.error as { message: string; data?: unknown };
}

describe('A2A conformance (JSON-RPC binding, A2A 1.0): what the conformance kit checks', () => {
  it("publishes the card in the specification's JSON form: the official SDK's resolver keeps the bearer scheme", async () => {
    server = await startTestServer();
    const card = await new DefaultAgentCardResolver().resolve(server.url);
    const bearer = card.securitySchemes.bearer?.scheme;
    expect(bearer?.$case).toBe('httpAuthSecurityScheme');
    expect(bearer?.$case === 'httpAuthSecurityScheme' ? bearer.value.scheme : undefined).toBe('Bearer');
    expect(card.securityRequirements.map((requirement) => Object.keys(requirement.schemes))).toEqual([['bearer']]);
    expect(card.supportedInterfaces).toEqual([
      { url: `${server.url}/v1/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
    ]);
    expect(card.skills.map((skill) => skill.id)).toContain('apply_refund');
    // The wire form is the specification's (the kit validates it against a2a.json): a oneof by its field name.
    const raw = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as {
      securitySchemes: Record<string, Record<string, unknown>>;
    };
    expect(raw.securitySchemes).toEqual({
      bearer: { httpAuthSecurityScheme: { description: 'a token of the server auth file', scheme: 'Bearer' } },
    });
  });

  it('a client built from the card by the SDK factory still talks to the endpoint', async () => {
    server = await startTestServer();
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${testTokens.alice}`);
      return fetch(input, { ...init, headers });
    };
    const client = await new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl })],
      }),
    ).createFromUrl(server.url);
    const card = await client.getAgentCard();
    expect(card.securitySchemes.bearer?.scheme?.$case).toBe('httpAuthSecurityScheme');
  });

  it('serves the card with Cache-Control, an ETag and Last-Modified; a current copy is answered 304', async () => {
    server = await startTestServer();
    const first = await fetch(`${server.url}/.well-known/agent-card.json`);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('public, max-age=300');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^W\/"[0-9a-f]{32}"$/);
    const again = await fetch(`${server.url}/.well-known/agent-card.json`, {
      headers: { 'if-none-match': etag ?? '' },
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    const stale = await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { 'if-none-match': 'W/"0"' } });
    expect(stale.status).toBe(200);
    // Last-Modified (a MAY of the kit): If-Modified-Since counts only without If-None-Match.
    const lastModified = first.headers.get('last-modified') ?? '';
    expect(Date.parse(lastModified)).toBeLessThanOrEqual(Date.now());
    const since = { 'if-modified-since': lastModified };
    expect((await fetch(`${server.url}/.well-known/agent-card.json`, { headers: since })).status).toBe(304);
    const older = { 'if-modified-since': new Date(Date.parse(lastModified) - 60_000).toUTCString() };
    expect((await fetch(`${server.url}/.well-known/agent-card.json`, { headers: older })).status).toBe(200);
    const both = { ...since, 'if-none-match': 'W/"0"' };
    expect((await fetch(`${server.url}/.well-known/agent-card.json`, { headers: both })).status).toBe(200);
  });

  it('answers POST /v1/a2a/ (a trailing slash, as the kit and many clients send it) like /v1/a2a, behind the same auth', async () => {
    server = await startTestServer();
    const getTask = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: 'no-such-task' } });
    const answer = await rpc({ body: getTask, path: '/v1/a2a/' });
    expect(answer.status).toBe(200);
    expectJsonRpcError(answer.text, -32001);
    const anonymous = await rpc({ body: getTask, path: '/v1/a2a/', headers: { 'content-type': 'application/json' } });
    expect(anonymous.status).toBe(401);
  });

  it('answers a body that is not JSON with JSON-RPC -32700 (parse error), not a REST error', async () => {
    server = await startTestServer();
    for (const body of ['{not json', '', "{'jsonrpc': '2.0', 'id': 1}"]) {
      const answer = await rpc({ body });
      expect(answer.status).toBe(200);
      expect(answer.contentType).toContain('application/json');
      const error = expectJsonRpcError(answer.text, -32700);
      expect(error.message).toMatch(/JSON/);
      expect(JSON.parse(answer.text).id).toBeNull();
    }
  });

  it('answers JSON that is not a request object with JSON-RPC -32600 (invalid request)', async () => {
    server = await startTestServer();
    for (const body of ['[]', '[{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}]', '42', 'null']) {
      const answer = await rpc({ body });
      expect(answer.status).toBe(200);
      expectJsonRpcError(answer.text, -32600);
    }
  });

  it('answers a Content-Type other than JSON with ContentTypeNotSupportedError (-32005), as the kit expects', async () => {
    server = await startTestServer();
    const answer = await rpc({
      body: "{'jsonrpc': '2.0', 'id': 1, 'method': 'SendMessage'}",
      headers: { ...authorized(), 'content-type': 'text/plain' },
    });
    expect(answer.status).toBe(200);
    const error = expectJsonRpcError(answer.text, -32005);
    expect(error.data).toEqual([expect.objectContaining({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo' })]);
    // application/json with parameters is JSON.
    const charset = await rpc({
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: 'x' } }),
      headers: { ...authorized(), 'content-type': 'application/json; charset=utf-8' },
    });
    expectJsonRpcError(charset.text, -32001);
  });

  it('refuses a request nested deeper than the limit with -32600 naming the limit, not an internal error', async () => {
    server = await startTestServer();
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const body = `{"jsonrpc":"2.0","id":"deep","method":"SendMessage","params":{"message":{"messageId":"${randomUUID()}","role":"ROLE_USER","parts":[{"text":"hi"}],"metadata":{"x":${deep}}}}}`;
    const answer = await rpc({ body });
    expect(answer.status).toBe(200);
    const error = expectJsonRpcError(answer.text, -32600);
    expect(error.message).toBe(
      'the request nests objects and arrays more than 64 levels deep; at most 64 are accepted',
    );
    expect(JSON.parse(answer.text).id).toBe('deep');
    // Just under the limit is an ordinary request.
    const ok = `{"jsonrpc":"2.0","id":2,"method":"GetTask","params":{"id":"x","metadata":${'['.repeat(61)}${']'.repeat(61)}}}`;
    expectJsonRpcError((await rpc({ body: ok })).text, -32001);
  });

  it('answers SubscribeToTask on a finished task with a plain JSON-RPC error (-32004), opening no stream', async () => {
    server = await startTestServer();
    const sent = JSON.parse((await rpc({ body: sendMessage('Where is my order SO20260901?') })).text) as {
      result: { task: { id: string; status: { state: string } } };
    };
    expect(sent.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const answer = await rpc({
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'SubscribeToTask', params: { id: sent.result.task.id } }),
    });
    expect(answer.status).toBe(200);
    expect(answer.contentType).toContain('application/json');
    expectJsonRpcError(answer.text, -32004);
    expect(JSON.parse(answer.text).id).toBe(9);
    // An unknown task, and another user's, are TaskNotFoundError the same way.
    for (const [id, token] of [
      ['no-such-task', testTokens.alice],
      [sent.result.task.id, testTokens.bob],
      [sent.result.task.id, testTokens.mallory],
    ] as const) {
      const notFound = await rpc({
        body: JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'SubscribeToTask', params: { id } }),
        headers: authorized(token),
      });
      expect(notFound.contentType).toContain('application/json');
      expectJsonRpcError(notFound.text, -32001);
    }
  });

  it('streams as before: SendStreamingMessage opens an SSE stream that ends at the final state', async () => {
    server = await startTestServer();
    const answer = await rpc({
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'SendStreamingMessage',
        params: {
          message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'Where is my order SO20260901?' }] },
        },
      }),
    });
    expect(answer.contentType).toContain('text/event-stream');
    const events = answer.text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as { result: Record<string, { status?: { state?: string } }> });
    expect(Object.keys(events[0]?.result ?? {})).toEqual(['task']);
    expect(events.at(-1)?.result.statusUpdate?.status?.state).toBe('TASK_STATE_COMPLETED');
  });
});
