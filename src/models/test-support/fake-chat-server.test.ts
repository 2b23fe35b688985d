import { afterEach, describe, expect, it } from 'vitest';
import { type FakeChatServer, type FakeResponder, startFakeChatServer } from './fake-chat-server.js';

let server: FakeChatServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(respond: FakeResponder): Promise<FakeChatServer> {
  server = await startFakeChatServer({ respond });
  return server;
}

function post(url: string, body: unknown): Promise<Response> {
  return fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-trace': 'abc' },
    body: JSON.stringify(body),
  });
}

describe('startFakeChatServer', () => {
  it('answers with one chat.completion when the request does not stream', async () => {
    const { url, requests } = await start([
      { kind: 'answer', text: 'hi', toolCalls: [{ name: 'list_refunds', arguments: '{}' }] },
    ]);

    const response = await post(url, { model: 'm', messages: [] });

    expect(await response.json()).toMatchObject({
      object: 'chat.completion',
      model: 'm',
      choices: [
        {
          message: {
            content: 'hi',
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'list_refunds', arguments: '{}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5 },
    });
    expect(requests[0]).toMatchObject({
      index: 0,
      method: 'POST',
      path: '/v1/chat/completions',
      body: { model: 'm', messages: [] },
      headers: { 'x-trace': 'abc' },
      clientDisconnected: false,
    });
  });

  it('sends SSE events ending with [DONE] when the request streams', async () => {
    const { url } = await start([{ kind: 'answer', text: 'hello', textChunkSize: 3, usage: null }]);

    const response = await post(url, { model: 'm', messages: [], stream: true });
    const text = await response.text();

    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = text.split('\n\n').filter((event) => event !== '');
    expect(events.at(-1)).toBe('data: [DONE]');
    expect(events).toHaveLength(5);
  });

  it('passes the request and its index to a responder function', async () => {
    const { url } = await start((request, index) => ({
      kind: 'error',
      status: 400 + index,
      body: String(request.path),
    }));

    const first = await post(url, {});
    const second = await post(url, {});

    expect([first.status, second.status]).toEqual([400, 401]);
    expect(await first.text()).toBe('/v1/chat/completions');
  });

  it('answers 500 saying so when the reply list runs out', async () => {
    const { url } = await start([]);

    const response = await post(url, {});

    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({
      error: { message: 'fake server: no reply scripted for request #0' },
    });
  });

  it('answers 404 when the route is not chat completions', async () => {
    const { url, requests } = await start([{ kind: 'answer', text: 'unused' }]);

    const response = await fetch(`${url}/models`);

    expect(response.status).toBe(404);
    expect(requests[0]?.path).toBe('/v1/models');
  });

  it('waits delayMs before answering when a delay is set', async () => {
    const { url } = await start([{ kind: 'json', body: { ok: true }, delayMs: 80 }]);
    const startedAt = Date.now();

    await (await post(url, {})).json();

    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(70);
  });

  it('closes promptly when a reply hangs', async () => {
    const { url } = await start([{ kind: 'hang' }]);
    const pending = post(url, {}).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 20));

    await server?.close();
    server = undefined;

    expect(await pending).toBeInstanceOf(Error);
  });
});

describe('startFakeChatServer, Responses API replies', () => {
  it('streams named semantic events ending with response.completed and no [DONE]', async () => {
    const { url, requests } = await start([{ kind: 'response', text: 'hi there', textChunkSize: 4 }]);

    const response = await fetch(`${url}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', input: 'hello', stream: true }),
    });
    const text = await response.text();

    const events = text.split('\n\n').filter((event) => event !== '');
    expect(events.map((event) => event.split('\n')[0])).toEqual([
      'event: response.created',
      'event: response.in_progress',
      'event: response.output_item.added',
      'event: response.content_part.added',
      'event: response.output_text.delta',
      'event: response.output_text.delta',
      'event: response.output_text.done',
      'event: response.content_part.done',
      'event: response.output_item.done',
      'event: response.completed',
    ]);
    expect(text).not.toContain('[DONE]');
    const completed = JSON.parse(events.at(-1)?.split('\n')[1]?.slice('data: '.length) ?? '') as Record<
      string,
      unknown
    >;
    expect(completed).toMatchObject({
      type: 'response.completed',
      sequence_number: 9,
      response: { id: 'resp_fake_0', model: 'm', status: 'completed', usage: { input_tokens: 10, output_tokens: 5 } },
    });
    expect(requests[0]?.path).toBe('/v1/responses');
  });

  it('answers one response object when the request does not stream', async () => {
    const { url } = await start([{ kind: 'response', refusal: 'No.' }]);

    const response = await fetch(`${url}/responses`, { method: 'POST', body: JSON.stringify({ model: 'm' }) });

    expect(await response.json()).toMatchObject({
      object: 'response',
      status: 'completed',
      output: [{ type: 'message', content: [{ type: 'refusal', refusal: 'No.' }] }],
    });
  });
});
