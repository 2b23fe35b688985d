import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type FakeAnswer, toChatCompletion, toStreamChunks } from '../chat-completion-chunks.js';
import { type FakeResponsesAnswer, toResponseEvents, toResponseObject } from './response-events.js';

/** Timing shared by every reply. */
export interface FakeTiming {
  /** Wait this long before sending anything. */
  readonly delayMs?: number;
}

/** Streaming knobs for replies sent as SSE. */
export interface FakeStreaming extends FakeTiming {
  /** Wait this long between two SSE events. */
  readonly chunkDelayMs?: number;
  /** Destroy the socket after this many SSE events (a mid-stream reset). */
  readonly resetAfterChunks?: number;
  /** Send the closing `data: [DONE]`. Default true for chat completions, false for the Responses API (which has none). */
  readonly done?: boolean;
}

/**
 * What the fake server does with one request.
 *
 * - `answer`: a text and/or tool-call answer. Sent as SSE chunks when the
 *   request has `stream: true`, else as one `chat.completion` JSON body.
 * - `response`: a Responses API answer (`POST /v1/responses`): its semantic
 *   events as SSE (`event: <type>` and `data:`) when the request streams,
 *   else one `response` object.
 * - `chunks`: these SSE events, verbatim (an object is JSON-encoded, a string
 *   is sent as the `data:` payload as is, e.g. broken JSON).
 * - `json`: a plain JSON body (a non-streamed response, whatever was asked).
 * - `error`: an HTTP error with status, headers and body (an object is sent
 *   as JSON, a string as text; default an OpenAI-style error object).
 * - `reset`: destroy the connection without answering.
 * - `hang`: never answer (until the client gives up or the server closes).
 */
export type FakeReply =
  | ({ readonly kind: 'answer' } & FakeAnswer & FakeStreaming)
  | ({ readonly kind: 'response' } & FakeResponsesAnswer & FakeStreaming)
  | ({ readonly kind: 'chunks'; readonly chunks: readonly unknown[] } & FakeStreaming)
  | ({ readonly kind: 'json'; readonly body: unknown; readonly status?: number } & FakeTiming)
  | ({
      readonly kind: 'error';
      readonly status: number;
      readonly headers?: Readonly<Record<string, string>>;
      readonly body?: unknown;
    } & FakeTiming)
  | ({ readonly kind: 'reset' } & FakeTiming)
  | { readonly kind: 'hang' };

/** One request as the fake server received it. */
export interface RecordedRequest {
  /** 0 for the first request this server received. */
  readonly index: number;
  readonly method: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  readonly path: string;
  /** Lower-cased names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  readonly body: unknown;
  /** True once the client closed the connection before the reply was complete. */
  readonly clientDisconnected: boolean;
}

/** Decides the reply to each request: a function, or a list served in order. */
export type FakeResponder =
  | ((request: RecordedRequest, index: number) => FakeReply | Promise<FakeReply>)
  | readonly FakeReply[];

export interface FakeChatServer {
  /** Base URL for an OpenAI client, ending in `/v1`. */
  readonly url: string;
  /** Every request received, in order of arrival. */
  readonly requests: readonly RecordedRequest[];
  /** Stops listening and drops open connections (including hanging replies). */
  close(): Promise<void>;
}

/**
 * What `GET /v1/models` answers: these model ids as an OpenAI model list, or
 * the reply a function picks (e.g. a 401 for a refused key).
 */
export type FakeModels = readonly string[] | ((request: RecordedRequest) => FakeReply | Promise<FakeReply>);

/**
 * Starts a real HTTP server on 127.0.0.1 (random port) that speaks the
 * chat-completions wire format at `POST /v1/chat/completions` (and the
 * Responses API's at `POST /v1/responses`, for `response` replies), and, with
 * `models`, answers `GET /v1/models`. Any other route answers 404. When a
 * reply list runs out, it answers 500 with a body saying so.
 *
 * @example
 * const server = await startFakeChatServer({
 *   respond: [
 *     { kind: 'error', status: 503, headers: { 'retry-after': '1' } },
 *     { kind: 'answer', toolCalls: [{ name: 'query_order', arguments: '{"order_id":"SO20260901"}' }], argumentChunkSize: 3 },
 *   ],
 * });
 * const model = new OpenAiModel({ baseUrl: server.url, apiKey: 'test-key', model: 'gpt-4o-mini' });
 * // ... assert on server.requests[0].body
 * await server.close();
 */
export async function startFakeChatServer({
  respond,
  models,
}: {
  respond: FakeResponder;
  models?: FakeModels;
}): Promise<FakeChatServer> {
  const requests: RecordedRequest[] = [];
  const closing = new AbortController();

  const server = createServer((incoming, outgoing) => {
    void handle(incoming, outgoing).catch(() => {
      if (!outgoing.headersSent) outgoing.writeHead(500);
      outgoing.destroy();
    });
  });

  async function handle(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const rawBody = await readBody(incoming);
    const record = {
      index: requests.length,
      method: incoming.method ?? 'GET',
      path: incoming.url ?? '/',
      headers: flattenHeaders(incoming),
      body: parseBody(rawBody),
      clientDisconnected: false,
    };
    requests.push(record);
    const gone = new AbortController();
    outgoing.on('error', () => gone.abort());
    outgoing.on('close', () => {
      if (!outgoing.writableFinished) record.clientDisconnected = true;
      gone.abort();
    });
    const signal = AbortSignal.any([gone.signal, closing.signal]);

    if (models !== undefined && record.method === 'GET' && record.path === '/v1/models') {
      const reply: FakeReply =
        typeof models === 'function'
          ? await models(record)
          : { kind: 'json', body: { object: 'list', data: models.map((id) => ({ id, object: 'model' })) } };
      if (reply.kind === 'hang') return;
      if (!(await sleep(reply.delayMs ?? 0, signal))) return;
      await sendReply({ reply, record, outgoing, signal });
      return;
    }
    if (record.method !== 'POST' || !(record.path.startsWith('/v1/chat/completions') || isResponsesPath(record))) {
      sendJson(outgoing, 404, errorBody(`fake server: no route for ${record.method} ${record.path}`));
      return;
    }
    const reply = await pickReply(respond, record);
    if (reply === undefined) {
      sendJson(outgoing, 500, errorBody(`fake server: no reply scripted for request #${record.index}`));
      return;
    }
    if (reply.kind === 'hang') return;
    if (!(await sleep(reply.delayMs ?? 0, signal))) return;
    await sendReply({ reply, record, outgoing, signal });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close() {
      closing.abort();
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

async function pickReply(respond: FakeResponder, record: RecordedRequest): Promise<FakeReply | undefined> {
  if (typeof respond === 'function') return respond(record, record.index);
  return respond[record.index];
}

async function sendReply({
  reply,
  record,
  outgoing,
  signal,
}: {
  reply: Exclude<FakeReply, { kind: 'hang' }>;
  record: RecordedRequest;
  outgoing: ServerResponse;
  signal: AbortSignal;
}): Promise<void> {
  const identity = { id: `chatcmpl-fake-${record.index}`, model: requestedModel(record.body) };
  switch (reply.kind) {
    case 'reset':
      outgoing.socket?.destroy();
      return;
    case 'error': {
      const { status, headers = {}, body = errorBody(`fake error ${status}`) } = reply;
      if (typeof body === 'string') {
        outgoing.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(body);
      } else {
        outgoing.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
      }
      return;
    }
    case 'json':
      sendJson(outgoing, reply.status ?? 200, reply.body);
      return;
    case 'chunks':
      await sendEvents({ events: reply.chunks, streaming: reply, outgoing, signal, named: isResponsesPath(record) });
      return;
    case 'response': {
      const responseIdentity = { id: reply.responseId ?? `resp_fake_${record.index}`, model: identity.model };
      if (isStreamRequest(record.body)) {
        const events = toResponseEvents(reply, responseIdentity);
        await sendEvents({ events, streaming: reply, outgoing, signal, named: true });
      } else {
        sendJson(outgoing, 200, toResponseObject(reply, responseIdentity));
      }
      return;
    }
    case 'answer':
      if (isStreamRequest(record.body)) {
        await sendEvents({ events: toStreamChunks(reply, identity), streaming: reply, outgoing, signal });
      } else {
        sendJson(outgoing, 200, toChatCompletion(reply, identity));
      }
      return;
  }
}

async function sendEvents({
  events,
  streaming,
  outgoing,
  signal,
  named = false,
}: {
  events: readonly unknown[];
  streaming: FakeStreaming;
  outgoing: ServerResponse;
  signal: AbortSignal;
  /** Name each event object by its `type` (`event: <type>`), as the Responses API does; no `[DONE]` by default. */
  named?: boolean;
}): Promise<void> {
  const { chunkDelayMs = 0, resetAfterChunks, done = !named } = streaming;
  outgoing.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  outgoing.flushHeaders();
  for (const [position, event] of events.entries()) {
    if (position === resetAfterChunks) {
      outgoing.socket?.destroy();
      return;
    }
    if (position > 0 && !(await sleep(chunkDelayMs, signal))) return;
    if (signal.aborted) return;
    const name = named ? eventName(event) : undefined;
    const data = `data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`;
    await write(outgoing, name === undefined ? data : `event: ${name}\n${data}`);
  }
  if (resetAfterChunks !== undefined && resetAfterChunks >= events.length) {
    outgoing.socket?.destroy();
    return;
  }
  if (done) outgoing.write('data: [DONE]\n\n');
  outgoing.end();
}

/** Resolves once the data is handed to the socket, so a reset right after it does not swallow it. */
function write(outgoing: ServerResponse, data: string): Promise<void> {
  return new Promise((resolve) => outgoing.write(data, () => resolve()));
}

function sendJson(outgoing: ServerResponse, status: number, body: unknown): void {
  outgoing.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function errorBody(message: string) {
  return { error: { message, type: 'fake_error', param: null, code: null } };
}

function readBody(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    incoming.on('data', (part: Buffer) => parts.push(part));
    incoming.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    incoming.on('error', reject);
  });
}

function parseBody(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function flattenHeaders(incoming: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function isResponsesPath(record: RecordedRequest): boolean {
  return record.path === '/v1/responses' || record.path.startsWith('/v1/responses?');
}

function eventName(event: unknown): string | undefined {
  return typeof event === 'object' && event !== null && 'type' in event && typeof event.type === 'string'
    ? event.type
    : undefined;
}

function isStreamRequest(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'stream' in body && body.stream === true;
}

function requestedModel(body: unknown): string {
  return typeof body === 'object' && body !== null && 'model' in body && typeof body.model === 'string'
    ? body.model
    : 'fake-model';
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
