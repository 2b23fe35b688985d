import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a raw agent received, as it came over the wire. */
export interface RawA2aRequest {
  readonly method: string;
  readonly path: string;
  /** The `Authorization` header, if any. */
  readonly authorization: string | undefined;
  /** The `X-Api-Key` header, if any. */
  readonly apiKey: string | undefined;
  /** The JSON-RPC method of a POST, e.g. `SendStreamingMessage`. */
  readonly rpcMethod: string | undefined;
  readonly rpcId: unknown;
  readonly params: Record<string, unknown>;
}

/** An A2A agent written by hand on `node:http`: it says what the test makes it say, right or wrong. */
export interface RawA2aAgent {
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  /** `ORIGIN/.well-known/agent-card.json`. */
  readonly cardUrl: string;
  /** Every request, in order. */
  readonly requests: RawA2aRequest[];
  close(): Promise<void>;
}

type Handler = (request: RawA2aRequest, response: ServerResponse, agent: RawA2aAgent) => void | Promise<void>;

/**
 * Starts a raw A2A agent on loopback; `handle` answers each request (the
 * card's GET and the JSON-RPC POSTs alike) with the helpers below.
 *
 * @example
 * const agent = await startRawA2aAgent({ handle: (request, response, self) => sendJson(response, card(self.origin)) });
 */
export async function startRawA2aAgent({ handle }: { handle: Handler }): Promise<RawA2aAgent> {
  const requests: RawA2aRequest[] = [];
  const open = new Set<ServerResponse>();
  let agent: RawA2aAgent | undefined;
  const server = createServer((incoming: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let rpc: { method?: unknown; id?: unknown; params?: unknown } = {};
      try {
        rpc = body === '' ? {} : (JSON.parse(body) as typeof rpc);
      } catch {
        rpc = {};
      }
      const header = (name: string) => {
        const value = incoming.headers[name];
        return Array.isArray(value) ? value.join(', ') : value;
      };
      const request: RawA2aRequest = {
        method: incoming.method ?? 'GET',
        path: incoming.url ?? '/',
        authorization: header('authorization'),
        apiKey: header('x-api-key'),
        rpcMethod: typeof rpc.method === 'string' ? rpc.method : undefined,
        rpcId: rpc.id,
        params: typeof rpc.params === 'object' && rpc.params !== null ? (rpc.params as Record<string, unknown>) : {},
      };
      requests.push(request);
      open.add(response);
      response.on('close', () => open.delete(response));
      if (agent === undefined) throw new Error('the agent is not listening yet');
      Promise.resolve(handle(request, response, agent)).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500);
        response.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  agent = {
    origin,
    cardUrl: `${origin}/.well-known/agent-card.json`,
    requests,
    close: async () => {
      // Answers left hanging on purpose (a lost answer) are cut, so the server can close.
      for (const response of open) response.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return agent;
}

/** An Agent Card (A2A 1.0 JSON) whose JSON-RPC endpoint is `endpoint` and whose skills are `skills`. */
export function rawAgentCard({
  endpoint,
  skills,
  name = 'raw',
}: {
  endpoint: string;
  skills: readonly { id: string; description: string }[];
  name?: string;
}): Record<string, unknown> {
  return {
    name,
    description: 'An agent written by hand for a test.',
    version: '1.0.0',
    supportedInterfaces: [{ url: endpoint, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: skills.map((skill) => ({
      id: skill.id,
      name: skill.id,
      description: skill.description,
      tags: [],
      inputModes: ['text/plain'],
      outputModes: ['text/plain'],
    })),
  };
}

/** A task as A2A 1.0 JSON: its id, context, state (`TASK_STATE_…`), status text and answer text. */
export function rawTask({
  id,
  contextId,
  state,
  said,
  answer,
  history = [],
}: {
  id: string;
  contextId: string;
  state: string;
  said?: string;
  answer?: string;
  history?: readonly Record<string, unknown>[];
}): Record<string, unknown> {
  return {
    id,
    contextId,
    status: {
      state,
      ...(said === undefined
        ? {}
        : { message: { messageId: `said-${id.length}`, role: 'ROLE_AGENT', parts: [{ text: said }] } }),
    },
    ...(answer === undefined ? {} : { artifacts: [{ artifactId: 'answer', parts: [{ text: answer }] }] }),
    ...(history.length === 0 ? {} : { history }),
  };
}

/** Answers with JSON (a card, or a whole JSON-RPC response). */
export function sendJson(response: ServerResponse, value: unknown, status = 200): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(value));
}

/** Answers a JSON-RPC request with `result`. */
export function sendResult(response: ServerResponse, request: RawA2aRequest, result: unknown): void {
  sendJson(response, { jsonrpc: '2.0', id: request.rpcId, result });
}

/** Answers a JSON-RPC request with an error (`-32601` method not found, `-32001` task not found). */
export function sendRpcError(response: ServerResponse, request: RawA2aRequest, code: number, message: string): void {
  sendJson(response, { jsonrpc: '2.0', id: request.rpcId, error: { code, message } });
}

/** Opens the SSE answer of a streaming call; `send` writes one event, `end` closes it. */
export function openEventStream(
  response: ServerResponse,
  request: RawA2aRequest,
): { send(result: unknown): void; end(): void } {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  response.flushHeaders();
  return {
    send: (result) => {
      response.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: request.rpcId, result })}\n\n`);
    },
    end: () => response.end(),
  };
}

/** The message a `SendStreamingMessage` / `SendMessage` carried: its id, context and text. */
export function sentMessage(request: RawA2aRequest): { messageId: string; contextId: string; text: string } {
  const message = (request.params['message'] ?? {}) as {
    messageId?: string;
    contextId?: string;
    parts?: { text?: string }[];
  };
  return {
    messageId: message.messageId ?? '',
    contextId: message.contextId ?? '',
    text: (message.parts ?? []).map((part) => part.text ?? '').join(''),
  };
}
