import type { AssistantMessage, ReasoningItem, ToolCall } from '../core/chat-message.js';
import type { TokenUsage } from '../core/run-usage.js';
import { ModelError, type ModelErrorKind } from '../errors/model-error.js';
import { isRecord } from '../util/is-record.js';
import type { FinishReason, ModelResponse } from './model.js';

/** Collects the semantic events of one streamed Responses API call into a whole response. Pure. */
export interface ResponseAssembler {
  /**
   * Adds one parsed event and returns the answer text it carried (an
   * `output_text` or `refusal` delta; empty string when none). Throws a
   * `ModelError` for `response.failed` and `error` events (kind from the
   * error code: `rate_limited`, `server`, `request`) and for an event that
   * is not an object with a `type`.
   */
  push(event: unknown): string;
  /**
   * Adds a whole `response` object (a non-streamed answer): returns its text.
   */
  pushResponse(response: unknown): string;
  /**
   * The assembled response. Throws a `ModelError` of kind `response` when
   * the stream ended before `response.completed` / `response.incomplete`,
   * or a function call has no name.
   */
  finish(): ModelResponse & { readonly responseId: string | undefined };
}

interface PartialCall {
  itemId: string;
  callId: string;
  name: string;
  arguments: string;
}

/**
 * Starts assembling one Responses API answer from its events:
 *
 * - text: `response.output_text.delta` fragments, forwarded as they come;
 *   a refusal (`response.refusal.delta`) is forwarded too, becomes the
 *   message's content and `refusal`, with finish reason `content_filter`;
 * - function calls: `function_call` output items with their
 *   `response.function_call_arguments.delta` fragments, keyed by item id
 *   (so parallel calls may interleave); `…arguments.done` and
 *   `response.output_item.done` carry the authoritative whole;
 * - reasoning items (`rs_…`, with `encrypted_content` when asked for) are
 *   kept on the message, to be sent back with the next request;
 * - the terminal `response.completed` / `response.incomplete` gives usage
 *   and the response id; `incomplete` because of
 *   `max_output_tokens` is finish reason `length`, because of
 *   `content_filter` is `content_filter`;
 * - the order of calls is the order of their output items.
 *
 * @example
 * const assembler = createResponseAssembler();
 * for await (const event of stream) onTextDelta(assembler.push(event));
 * const { message, usage, finishReason } = assembler.finish();
 */
export function createResponseAssembler(): ResponseAssembler {
  let text = '';
  let sawText = false;
  let refusal: string | undefined;
  const calls = new Map<string, PartialCall>();
  const callOrder: PartialCall[] = [];
  const reasoning = new Map<string, ReasoningItem>();
  let terminal: { status: string; incompleteReason: string | undefined } | undefined;
  let usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  let responseId: string | undefined;

  const callFor = (itemId: string): PartialCall => {
    let call = calls.get(itemId);
    if (call === undefined) {
      call = { itemId, callId: '', name: '', arguments: '' };
      calls.set(itemId, call);
      callOrder.push(call);
    }
    return call;
  };

  const readItem = (item: unknown, done: boolean): string => {
    if (!isRecord(item)) throw malformed('an output item is not an object');
    const id = typeof item['id'] === 'string' ? item['id'] : '';
    if (item['type'] === 'function_call') {
      // Keyed by item id; by call id when a compatible server sends none, so a repeat in the final response is the same call.
      const callId = typeof item['call_id'] === 'string' ? item['call_id'] : '';
      const call = callFor(id !== '' ? id : callId !== '' ? `call:${callId}` : `item_${calls.size}`);
      if (typeof item['call_id'] === 'string' && item['call_id'] !== '') call.callId = item['call_id'];
      if (typeof item['name'] === 'string' && item['name'] !== '') call.name = item['name'];
      if (done && typeof item['arguments'] === 'string') call.arguments = item['arguments'];
    } else if (item['type'] === 'reasoning' && done && id !== '') {
      const encrypted = item['encrypted_content'];
      reasoning.set(id, typeof encrypted === 'string' ? { id, encrypted_content: encrypted } : { id });
    } else if (item['type'] === 'message' && done && !sawText && refusal === undefined) {
      // Only when no delta came before it: the message item is then the whole text.
      return readMessageContent(item['content']);
    }
    return '';
  };

  const readMessageContent = (content: unknown): string => {
    if (!Array.isArray(content)) return '';
    let added = '';
    for (const part of content) {
      if (!isRecord(part)) continue;
      if (part['type'] === 'output_text' && typeof part['text'] === 'string') {
        text += part['text'];
        added += part['text'];
        sawText = true;
      } else if (part['type'] === 'refusal' && typeof part['refusal'] === 'string') {
        refusal = (refusal ?? '') + part['refusal'];
        added += part['refusal'];
      }
    }
    return added;
  };

  const readResponse = (response: unknown): string => {
    if (!isRecord(response)) throw malformed('the response is not an object');
    if (typeof response['id'] === 'string') responseId = response['id'];
    if (isRecord(response['usage'])) usage = readUsage(response['usage']);
    const status = typeof response['status'] === 'string' ? response['status'] : 'completed';
    if (status === 'failed') throw failed(response['error']);
    const details = response['incomplete_details'];
    const reason = isRecord(details) && typeof details['reason'] === 'string' ? details['reason'] : undefined;
    terminal = { status, incompleteReason: reason };
    let added = '';
    const output = response['output'];
    if (Array.isArray(output)) {
      for (const item of output) added += readItem(item, true);
    }
    return added;
  };

  return {
    push(event) {
      if (!isRecord(event) || typeof event['type'] !== 'string') throw malformed('an event has no type');
      switch (event['type']) {
        case 'response.created':
        case 'response.in_progress':
          if (isRecord(event['response']) && typeof event['response']['id'] === 'string') {
            responseId = event['response']['id'];
          }
          return '';
        case 'response.output_text.delta': {
          const delta = stringField(event, 'delta');
          text += delta;
          if (delta !== '') sawText = true;
          return delta;
        }
        case 'response.refusal.delta': {
          const delta = stringField(event, 'delta');
          refusal = (refusal ?? '') + delta;
          return delta;
        }
        case 'response.output_item.added':
          return readItem(event['item'], false);
        case 'response.output_item.done':
          return readItem(event['item'], true);
        case 'response.function_call_arguments.delta':
          callFor(stringField(event, 'item_id')).arguments += stringField(event, 'delta');
          return '';
        case 'response.function_call_arguments.done':
          if (typeof event['arguments'] === 'string')
            callFor(stringField(event, 'item_id')).arguments = event['arguments'];
          return '';
        case 'response.completed':
        case 'response.incomplete':
        case 'response.failed':
          return readResponse(event['response']);
        case 'error':
          throw failed(event);
        default:
          return '';
      }
    },

    pushResponse(response) {
      return readResponse(response);
    },

    finish() {
      if (terminal === undefined) throw malformed('the stream ended before response.completed');
      const toolCalls = callOrder.map((call, position): ToolCall => {
        if (call.name === '') throw malformed(`function call ${position + 1} has no name`);
        return {
          id: call.callId === '' ? `call_${position + 1}` : call.callId,
          type: 'function',
          function: { name: call.name, arguments: call.arguments.trim() === '' ? '{}' : call.arguments },
        };
      });
      const content = refusal ?? (sawText ? text : null);
      const message: AssistantMessage = {
        role: 'assistant',
        content,
        ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
        ...(reasoning.size === 0 ? {} : { reasoning: [...reasoning.values()] }),
        ...(responseId === undefined ? {} : { response_id: responseId }),
      };
      return {
        message,
        usage,
        finishReason: finishReasonOf(terminal, toolCalls.length > 0, refusal !== undefined),
        ...(refusal === undefined ? {} : { refusal }),
        responseId,
      };
    },
  };
}

function finishReasonOf(
  terminal: { status: string; incompleteReason: string | undefined },
  hasCalls: boolean,
  refused: boolean,
): FinishReason {
  if (terminal.status === 'incomplete') {
    if (terminal.incompleteReason === 'max_output_tokens') return 'length';
    if (terminal.incompleteReason === 'content_filter') return 'content_filter';
    return 'other';
  }
  if (refused) return 'content_filter';
  if (terminal.status !== 'completed') return 'other';
  return hasCalls ? 'tool_calls' : 'stop';
}

function readUsage(raw: Record<string, unknown>): TokenUsage {
  const inputTokens = toCount(raw['input_tokens']);
  const outputTokens = toCount(raw['output_tokens']);
  const details = raw['input_tokens_details'];
  const cached = isRecord(details) ? details['cached_tokens'] : undefined;
  return typeof cached === 'number'
    ? { inputTokens, outputTokens, cachedInputTokens: toCount(cached) }
    : { inputTokens, outputTokens };
}

/** The error of a `response.failed` or `error` event: its code decides the kind, never its text alone. */
function failed(error: unknown): ModelError {
  const code = isRecord(error) && typeof error['code'] === 'string' ? error['code'] : undefined;
  const text = isRecord(error) && typeof error['message'] === 'string' ? error['message'] : undefined;
  const kind: ModelErrorKind =
    code === 'rate_limit_exceeded'
      ? 'rate_limited'
      : code === 'server_error' || code === undefined
        ? 'server'
        : code === 'invalid_prompt' || code.startsWith('invalid')
          ? 'request'
          : 'server';
  return new ModelError({
    kind,
    message: `the response failed${code === undefined ? '' : ` (${code})`}${text === undefined ? '' : `: ${text}`}`,
  });
}

function stringField(event: Record<string, unknown>, key: string): string {
  const value = event[key];
  if (typeof value !== 'string') throw malformed(`${String(event['type'])}.${key} is not a string`);
  return value;
}

function toCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

function malformed(detail: string): ModelError {
  return new ModelError({ kind: 'response', message: `malformed Responses API stream: ${detail}` });
}
