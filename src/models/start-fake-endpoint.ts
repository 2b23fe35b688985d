import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatMessage } from '../core/chat-message.js';
import type { ToolSpec } from '../core/tool-spec.js';
import { type FakeAnswer, toChatCompletion, toStreamChunks } from './chat-completion-chunks.js';
import type { Script } from './script.js';
import { ScriptedModel } from './scripted-model.js';

/** One chat-completions request the fake endpoint answered, as `onRequest` is told of it. */
export interface FakeEndpointExchange {
  readonly messages: number;
  /** The names of the tools the request offered. */
  readonly tools: readonly string[];
  readonly stream: boolean;
  /** What the script answered: the tool calls it made, or its text. */
  readonly answer: { readonly toolCalls: readonly string[] } | { readonly text: string };
}

/** A running fake endpoint. */
export interface FakeEndpoint {
  /** The base URL for `ARBITER_BASE_URL`, ending in `/v1`. */
  readonly url: string;
  /** The one model id it lists and answers as. */
  readonly model: string;
  /** Settles once the endpoint stopped listening (`close`, by whoever called it). */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

const maxBodyBytes = 4 * 1024 * 1024;

/**
 * A small OpenAI-compatible Chat Completions endpoint on this machine,
 * answered by the offline scripted model, so the real-model path (the
 * official `openai` client, `createConfiguredModel`, `serve --model openai`)
 * can be tried without an account: `GET /v1/models` lists `model`, and
 * `POST /v1/chat/completions` reads the conversation and the offered tools
 * as a model would and answers with the script's next step, a tool call
 * or text, streamed as SSE chunks when the request asks for `stream`. Any
 * API key is accepted; nothing leaves the machine. Not a model: it follows
 * the script (see `ScriptedModel`).
 *
 * @example
 * const endpoint = await startFakeEndpoint({ script: chatScripts.en, port: 8790 });
 * // ARBITER_BASE_URL=endpoint.url ARBITER_API_KEY=fake ARBITER_MODEL=endpoint.model
 * await endpoint.close();
 */
export async function startFakeEndpoint({
  script,
  model = 'fake-model',
  port = 0,
  host = '127.0.0.1',
  onRequest,
}: {
  script: Script;
  model?: string;
  port?: number;
  host?: string;
  /** Told of every answered chat-completions request (the CLI prints one line each). */
  onRequest?: (exchange: FakeEndpointExchange) => void;
}): Promise<FakeEndpoint> {
  const scripted = new ScriptedModel({ script, name: model });
  let answered = 0;

  const server = createServer((incoming, outgoing) => {
    handle(incoming, outgoing).catch((error: unknown) => {
      if (!outgoing.headersSent) sendError(outgoing, 500, error instanceof Error ? error.message : String(error));
      else outgoing.destroy();
    });
  });

  async function handle(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const path = (incoming.url ?? '/').split('?')[0];
    if (incoming.method === 'GET' && path === '/v1/models') {
      sendJson(outgoing, 200, { object: 'list', data: [{ id: model, object: 'model', owned_by: 'arbiter' }] });
      return;
    }
    if (incoming.method !== 'POST' || path !== '/v1/chat/completions') {
      sendError(outgoing, 404, `fake endpoint: no route for ${incoming.method} ${path}`);
      return;
    }
    const body = await readJson(incoming);
    const request = body === undefined ? undefined : readChatRequest(body);
    if (request === undefined) {
      sendError(outgoing, 400, 'fake endpoint: expected a JSON chat-completions request with a "messages" array');
      return;
    }
    const response = await scripted.generate({ messages: request.messages, tools: request.tools });
    const toolCalls = response.message.tool_calls ?? [];
    const answer: FakeAnswer = {
      text: response.message.content ?? '',
      toolCalls: toolCalls.map((call) => ({
        id: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
      })),
      usage: { promptTokens: response.usage.inputTokens, completionTokens: response.usage.outputTokens },
    };
    answered += 1;
    const identity = { id: `chatcmpl-fake-${answered}`, model, created: Math.floor(Date.now() / 1000) };
    if (request.stream) {
      outgoing.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const chunk of toStreamChunks(answer, identity)) outgoing.write(`data: ${JSON.stringify(chunk)}\n\n`);
      outgoing.end('data: [DONE]\n\n');
    } else {
      sendJson(outgoing, 200, toChatCompletion(answer, identity));
    }
    onRequest?.({
      messages: request.messages.length,
      tools: request.tools.map((tool) => tool.function.name),
      stream: request.stream,
      answer:
        toolCalls.length > 0
          ? { toolCalls: toolCalls.map((call) => `${call.function.name} ${call.function.arguments}`) }
          : { text: response.message.content ?? '' },
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/v1`,
    model,
    closed,
    close: async () => {
      if (!server.listening) return;
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/** The parts of a chat-completions body the script reads; `undefined` when it is not one. */
function readChatRequest(body: unknown): { messages: ChatMessage[]; tools: ToolSpec[]; stream: boolean } | undefined {
  if (typeof body !== 'object' || body === null || !('messages' in body) || !Array.isArray(body.messages)) {
    return undefined;
  }
  const messages: ChatMessage[] = [];
  for (const message of body.messages as unknown[]) {
    if (typeof message !== 'object' || message === null || !('role' in message)) return undefined;
    // Content given as parts ([{ type: 'text', text }]) is read as its text.
    const content = 'content' in message ? textOf(message.content) : null;
    messages.push({ ...message, content } as ChatMessage);
  }
  const tools = 'tools' in body && Array.isArray(body.tools) ? (body.tools as ToolSpec[]) : [];
  return { messages, tools, stream: 'stream' in body && body.stream === true };
}

function textOf(content: unknown): string | null {
  if (typeof content === 'string' || content === null) return content;
  if (!Array.isArray(content)) return null;
  return content
    .map((part: unknown) =>
      typeof part === 'object' && part !== null && 'text' in part && typeof part.text === 'string' ? part.text : '',
    )
    .join('');
}

async function readJson(incoming: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of incoming) {
    size += (part as Buffer).length;
    if (size > maxBodyBytes) return undefined;
    parts.push(part as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch {
    return undefined;
  }
}

function sendJson(outgoing: ServerResponse, status: number, body: unknown): void {
  outgoing.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function sendError(outgoing: ServerResponse, status: number, message: string): void {
  sendJson(outgoing, status, { error: { message, type: 'invalid_request_error', param: null, code: null } });
}
