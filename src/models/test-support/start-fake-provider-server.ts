import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as a fake provider received it. */
export interface ProviderRequest {
  readonly index: number;
  readonly method: string;
  /** Path and query. */
  readonly path: string;
  /** Lower-cased names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  readonly body: unknown;
}

/**
 * What a fake provider sends back:
 *
 * - `sse`: these events as `text/event-stream` (`event:` line when `event`
 *   is set, `data:` as JSON), the socket destroyed after `resetAfter` events
 *   when set (a connection cut mid-stream);
 * - `error`: an HTTP error with its status, headers and JSON body;
 * - `reset`: the connection destroyed without an answer;
 * - `hang`: headers sent, then nothing (until the client gives up or the server closes).
 */
export type ProviderReply =
  | {
      readonly kind: 'sse';
      readonly events: readonly { readonly event?: string; readonly data: unknown }[];
      readonly resetAfter?: number;
    }
  | {
      readonly kind: 'error';
      readonly status: number;
      readonly headers?: Readonly<Record<string, string>>;
      readonly body: unknown;
    }
  | { readonly kind: 'reset' }
  | { readonly kind: 'hang' };

export interface FakeProviderServer {
  /** `http://127.0.0.1:PORT` (no path). */
  readonly origin: string;
  readonly requests: readonly ProviderRequest[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 (random port) for the AI SDK provider
 * fakes: records each request, asks `handle` for the reply, writes it.
 *
 * @example
 * const server = await startFakeProviderServer({ handle: () => ({ kind: 'reset' }) });
 */
export async function startFakeProviderServer({
  handle,
}: {
  handle: (request: ProviderRequest) => ProviderReply | Promise<ProviderReply>;
}): Promise<FakeProviderServer> {
  const requests: ProviderRequest[] = [];
  const server = createServer((incoming, outgoing) => {
    void serve(incoming, outgoing).catch(() => {
      if (!outgoing.headersSent) outgoing.writeHead(500);
      outgoing.destroy();
    });
  });

  const serve = async (incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Kept as text.
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const request: ProviderRequest = {
      index: requests.length,
      method: incoming.method ?? 'GET',
      path: incoming.url ?? '/',
      headers,
      body,
    };
    requests.push(request);
    const reply = await handle(request);
    switch (reply.kind) {
      case 'reset':
        outgoing.destroy();
        return;
      case 'hang':
        outgoing.writeHead(200, { 'content-type': 'text/event-stream' });
        outgoing.flushHeaders();
        return;
      case 'error':
        outgoing.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        outgoing.end(JSON.stringify(reply.body));
        return;
      case 'sse': {
        outgoing.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        for (const [index, event] of reply.events.entries()) {
          if (reply.resetAfter !== undefined && index >= reply.resetAfter) {
            outgoing.destroy();
            return;
          }
          const line = event.event === undefined ? '' : `event: ${event.event}\n`;
          outgoing.write(`${line}data: ${JSON.stringify(event.data)}\n\n`);
          // Separate writes, so the client reads the stream in pieces as it would from a provider.
          await new Promise((resolve) => setImmediate(resolve));
        }
        outgoing.end();
        return;
      }
    }
  };

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
