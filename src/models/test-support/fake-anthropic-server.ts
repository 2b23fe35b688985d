import { isRecord } from '../../util/is-record.js';
import {
  type FakeProviderServer,
  type ProviderReply,
  type ProviderRequest,
  startFakeProviderServer,
} from './start-fake-provider-server.js';

/** One answer of the fake Anthropic Messages API, streamed as its SSE events. */
export interface AnthropicTurn {
  readonly kind: 'message';
  /** Thinking blocks first, each with the signature the server issues (and later demands back). */
  readonly thinking?: readonly { readonly text: string; readonly signature: string }[];
  /** A redacted thinking block's opaque data. */
  readonly redactedThinking?: string;
  readonly text?: string;
  /** Text sent in pieces of this many characters (default the whole text at once). */
  readonly textChunkSize?: number;
  readonly toolCalls?: readonly { readonly id: string; readonly name: string; readonly input: unknown }[];
  readonly stopReason?: 'end_turn' | 'tool_use' | 'max_tokens' | 'refusal';
  readonly usage?: { readonly input: number; readonly output: number; readonly cacheRead?: number };
  /** Cut the connection after this many SSE events. */
  readonly resetAfter?: number;
}

/**
 * What the fake Anthropic API does with one request: an answer, an HTTP
 * error (`retry-after` and all), an `error` event after `afterEvents` events
 * of an otherwise empty stream (Anthropic's overloaded stream), or a reset.
 */
export type AnthropicReply =
  | AnthropicTurn
  | {
      readonly kind: 'error';
      readonly status: number;
      readonly type: string;
      readonly headers?: Record<string, string>;
    }
  | { readonly kind: 'stream-error'; readonly type: string }
  | { readonly kind: 'reset' }
  | { readonly kind: 'hang' };

export interface FakeAnthropicServer extends FakeProviderServer {
  /** The `baseURL` for `createAnthropic`: `http://127.0.0.1:PORT/v1`. */
  readonly baseUrl: string;
  /** Why each refused request was refused (400), in order. */
  readonly refusals: readonly string[];
}

/**
 * A fake of Anthropic's Messages API (`POST /v1/messages`, streamed as
 * Anthropic's SSE events) that checks every request as the real API would,
 * and answers 400 `invalid_request_error` when it is wrong:
 *
 * - the `x-api-key` must be `apiKey`, `anthropic-version` set;
 * - messages alternate user/assistant from a user message; no empty text;
 * - each `tool_use` is answered by a `tool_result` with its id in the next
 *   user message, and each `tool_result` answers a `tool_use` of the
 *   assistant message right before it; `tool_use.input` is an object;
 * - an assistant message the server answered with thinking is sent back
 *   starting with that thinking, text and signature unchanged; a thinking
 *   block whose signature the server did not issue, or whose text was
 *   changed, is refused (as a forged signature is);
 * - a redacted thinking block comes back with its data unchanged.
 *
 * @example
 * const server = await startFakeAnthropicServer({ respond: [{ kind: 'message', text: 'Hello' }] });
 * const model = aiSdkModel(createAnthropic({ baseURL: server.baseUrl, apiKey: 'sk-ant-test' })('claude-sonnet-4-5'));
 */
export async function startFakeAnthropicServer({
  respond,
  apiKey = 'sk-ant-test-key-0000',
}: {
  respond: readonly AnthropicReply[] | ((request: ProviderRequest, index: number) => AnthropicReply);
  apiKey?: string;
}): Promise<FakeAnthropicServer> {
  const refusals: string[] = [];
  /** Thinking issued, by signature: its text. */
  const signatures = new Map<string, string>();
  /** Tool-use id → the thinking (signatures) of the answer it came in. */
  const thinkingOfCall = new Map<string, readonly string[]>();
  const redacted = new Set<string>();
  let answered = 0;

  const server = await startFakeProviderServer({
    handle: (request) => {
      if (request.method !== 'POST' || request.path !== '/v1/messages') {
        return { kind: 'error', status: 404, body: anthropicError('not_found_error', 'no such route') };
      }
      if (request.headers['x-api-key'] !== apiKey) {
        return { kind: 'error', status: 401, body: anthropicError('authentication_error', 'invalid x-api-key') };
      }
      const problem = checkRequest(request.body, { signatures, thinkingOfCall, redacted });
      if (problem !== undefined) {
        refusals.push(problem);
        return { kind: 'error', status: 400, body: anthropicError('invalid_request_error', problem) };
      }
      const index = answered;
      answered += 1;
      const reply = typeof respond === 'function' ? respond(request, index) : respond[index];
      if (reply === undefined) {
        return { kind: 'error', status: 500, body: anthropicError('api_error', 'the fake ran out of replies') };
      }
      return toProviderReply(reply, { signatures, thinkingOfCall, redacted });
    },
  });
  return { ...server, baseUrl: `${server.origin}/v1`, refusals };
}

interface Issued {
  signatures: Map<string, string>;
  thinkingOfCall: Map<string, readonly string[]>;
  redacted: Set<string>;
}

function anthropicError(type: string, message: string) {
  return { type: 'error', error: { type, message } };
}

function toProviderReply(reply: AnthropicReply, issued: Issued): ProviderReply {
  switch (reply.kind) {
    case 'reset':
    case 'hang':
      return { kind: reply.kind };
    case 'error':
      return {
        kind: 'error',
        status: reply.status,
        ...(reply.headers === undefined ? {} : { headers: reply.headers }),
        body: anthropicError(reply.type, `fake ${reply.type}`),
      };
    case 'stream-error':
      return {
        kind: 'sse',
        events: [
          { event: 'error', data: { type: 'error', error: { type: reply.type, message: `fake ${reply.type}` } } },
        ],
      };
    case 'message':
      return { kind: 'sse', events: messageEvents(reply, issued), ...optionalReset(reply.resetAfter) };
  }
}

function optionalReset(resetAfter: number | undefined): { resetAfter?: number } {
  return resetAfter === undefined ? {} : { resetAfter };
}

function messageEvents(turn: AnthropicTurn, issued: Issued): { event: string; data: unknown }[] {
  const events: { event: string; data: unknown }[] = [];
  const add = (type: string, fields: Record<string, unknown>) =>
    events.push({ event: type, data: { type, ...fields } });
  const usage = turn.usage ?? { input: 20, output: 10 };
  add('message_start', {
    message: {
      id: `msg_fake_${Math.random().toString(36).slice(2, 10)}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-fake',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: usage.input,
        output_tokens: 1,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: usage.cacheRead ?? 0,
      },
    },
  });
  let index = 0;
  const signaturesOfTurn: string[] = [];
  for (const block of turn.thinking ?? []) {
    issued.signatures.set(block.signature, block.text);
    signaturesOfTurn.push(block.signature);
    add('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
    add('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: block.text } });
    add('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } });
    add('content_block_stop', { index });
    index += 1;
  }
  if (turn.redactedThinking !== undefined) {
    issued.redacted.add(turn.redactedThinking);
    signaturesOfTurn.push(`redacted:${turn.redactedThinking}`);
    add('content_block_start', { index, content_block: { type: 'redacted_thinking', data: turn.redactedThinking } });
    add('content_block_stop', { index });
    index += 1;
  }
  if (turn.text !== undefined) {
    add('content_block_start', { index, content_block: { type: 'text', text: '' } });
    const size = turn.textChunkSize ?? Math.max(1, turn.text.length);
    for (let at = 0; at < turn.text.length; at += size) {
      add('content_block_delta', { index, delta: { type: 'text_delta', text: turn.text.slice(at, at + size) } });
    }
    add('content_block_stop', { index });
    index += 1;
  }
  for (const call of turn.toolCalls ?? []) {
    if (signaturesOfTurn.length > 0) issued.thinkingOfCall.set(call.id, signaturesOfTurn);
    add('content_block_start', { index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } });
    const json = JSON.stringify(call.input);
    const half = Math.ceil(json.length / 2);
    add('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(0, half) } });
    add('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(half) } });
    add('content_block_stop', { index });
    index += 1;
  }
  const stopReason = turn.stopReason ?? ((turn.toolCalls?.length ?? 0) > 0 ? 'tool_use' : 'end_turn');
  add('message_delta', {
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: usage.output },
  });
  add('message_stop', {});
  return events;
}

/** The first thing the real API would refuse in this request, or undefined. */
function checkRequest(body: unknown, issued: Issued): string | undefined {
  if (!isRecord(body)) return 'the body must be a JSON object';
  if (typeof body['model'] !== 'string' || body['model'] === '') return 'model: required';
  if (body['stream'] !== true) return 'stream: the fake only answers streamed requests';
  const messages = body['messages'];
  if (!Array.isArray(messages) || messages.length === 0) return 'messages: at least one message is required';
  for (const tool of Array.isArray(body['tools']) ? body['tools'] : []) {
    if (!isRecord(tool) || typeof tool['name'] !== 'string' || !isRecord(tool['input_schema'])) {
      return 'tools: each tool needs a name and an input_schema';
    }
    if (tool['input_schema']['type'] !== 'object') return `tools.${tool['name']}.input_schema.type: must be "object"`;
  }
  let previousToolUses: string[] = [];
  for (const [position, message] of messages.entries()) {
    if (!isRecord(message)) return `messages.${position}: must be an object`;
    const expectedRole = position % 2 === 0 ? 'user' : 'assistant';
    if (message['role'] !== expectedRole) {
      return `messages.${position}: roles must alternate between "user" and "assistant", starting with "user"`;
    }
    const blocks =
      typeof message['content'] === 'string' ? [{ type: 'text', text: message['content'] }] : message['content'];
    if (!Array.isArray(blocks) || blocks.length === 0) return `messages.${position}: content must not be empty`;
    const toolUses: string[] = [];
    const toolResults: string[] = [];
    const thinkingSent: string[] = [];
    let seenOther = false;
    for (const block of blocks) {
      if (!isRecord(block)) return `messages.${position}: each content block must be an object`;
      switch (block['type']) {
        case 'text':
          if (typeof block['text'] !== 'string' || block['text'] === '') {
            return `messages.${position}: text content blocks must be non-empty`;
          }
          seenOther = true;
          break;
        case 'thinking': {
          if (message['role'] !== 'assistant') return `messages.${position}: thinking only in assistant messages`;
          if (seenOther) return `messages.${position}: thinking blocks must come first`;
          const signature = block['signature'];
          if (typeof signature !== 'string' || issued.signatures.get(signature) !== block['thinking']) {
            return `messages.${position}: invalid signature in thinking block`;
          }
          thinkingSent.push(signature);
          break;
        }
        case 'redacted_thinking':
          if (typeof block['data'] !== 'string' || !issued.redacted.has(block['data'])) {
            return `messages.${position}: invalid redacted_thinking data`;
          }
          thinkingSent.push(`redacted:${block['data']}`);
          break;
        case 'tool_use':
          if (message['role'] !== 'assistant') return `messages.${position}: tool_use only in assistant messages`;
          if (typeof block['id'] !== 'string' || typeof block['name'] !== 'string') {
            return `messages.${position}: tool_use needs an id and a name`;
          }
          if (!isRecord(block['input']))
            return `messages.${position}: tool_use.input: Input should be a valid dictionary`;
          toolUses.push(block['id']);
          seenOther = true;
          break;
        case 'tool_result':
          if (message['role'] !== 'user') return `messages.${position}: tool_result only in user messages`;
          if (typeof block['tool_use_id'] !== 'string' || !previousToolUses.includes(block['tool_use_id'])) {
            return `messages.${position}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block['tool_use_id'])}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
          }
          toolResults.push(block['tool_use_id']);
          seenOther = true;
          break;
        default:
          return `messages.${position}: unknown content block type ${String(block['type'])}`;
      }
    }
    const unanswered = previousToolUses.filter((id) => !toolResults.includes(id));
    if (unanswered.length > 0) {
      return `messages.${position}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${unanswered.join(', ')}`;
    }
    for (const id of toolUses) {
      const expected = issued.thinkingOfCall.get(id);
      if (expected !== undefined && expected.join('\n') !== thinkingSent.join('\n')) {
        return `messages.${position}: the assistant message with tool_use ${id} must start with the thinking blocks it was answered with, unchanged`;
      }
    }
    previousToolUses = toolUses;
  }
  if (previousToolUses.length > 0) return 'messages: the last message has tool_use blocks without results';
  return undefined;
}
