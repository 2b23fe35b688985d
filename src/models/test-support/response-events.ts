import type { FakeToolCall, FakeUsage } from '../chat-completion-chunks.js';

/** What a fake Responses API answer holds, in the order OpenAI emits its output items. */
export interface FakeResponsesAnswer {
  /** A reasoning item first (as reasoning models send it): its summary text and encrypted content. */
  readonly reasoning?: { readonly summary?: string; readonly encryptedContent?: string };
  /** Text of an `output_text` part; omitted or empty means no message text. */
  readonly text?: string;
  /** The model declined: a `refusal` content part instead of text. */
  readonly refusal?: string;
  /** Function calls, one `function_call` output item each, after the message. */
  readonly toolCalls?: readonly FakeToolCall[];
  /** Characters (code points) per text fragment. Default 4. */
  readonly textChunkSize?: number;
  /** UTF-16 characters per `arguments` fragment. Default: one fragment. */
  readonly argumentChunkSize?: number;
  /** `incomplete` ends with `response.incomplete` and `incomplete_details.reason`. Default `completed`. */
  readonly status?: 'completed' | 'incomplete';
  /** Default `max_output_tokens`. */
  readonly incompleteReason?: 'max_output_tokens' | 'content_filter';
  /** Default `{ promptTokens: 10, completionTokens: 5 }`; `null` sends `usage: null`. */
  readonly usage?: FakeUsage | null;
  /** The response id; default `resp_fake_<request index>`. */
  readonly responseId?: string;
}

/** Identity fields of one fake response. */
export interface ResponseIdentity {
  readonly id: string;
  readonly model: string;
  readonly createdAt?: number;
}

const defaultUsage: FakeUsage = { promptTokens: 10, completionTokens: 5 };

/**
 * Cuts an answer into the semantic events of a streamed Responses API call,
 * shaped as OpenAI records them (`response.created`, `response.in_progress`,
 * `response.output_item.added`, `response.content_part.added`,
 * `response.output_text.delta` / `.done`, `response.refusal.delta`,
 * `response.reasoning_summary_text.delta`,
 * `response.function_call_arguments.delta` / `.done`,
 * `response.output_item.done`, then `response.completed` or
 * `response.incomplete`), each with its `sequence_number`. Send each as an
 * SSE `event: <type>` plus `data: <json>`.
 *
 * @example
 * const events = toResponseEvents({ text: 'Hello' }, { id: 'resp_1', model: 'gpt-5-mini' });
 */
export function toResponseEvents(answer: FakeResponsesAnswer, identity: ResponseIdentity): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  const emit = (type: string, body: Record<string, unknown>) =>
    events.push({ type, sequence_number: events.length, ...body });
  const { textChunkSize = 4 } = answer;
  const output: Record<string, unknown>[] = [];

  emit('response.created', { response: responseObject(answer, identity, 'in_progress', []) });
  emit('response.in_progress', { response: responseObject(answer, identity, 'in_progress', []) });

  if (answer.reasoning !== undefined) {
    const output_index = output.length;
    const id = `rs_fake_${output_index}`;
    emit('response.output_item.added', { output_index, item: { id, type: 'reasoning', summary: [] } });
    const summary = answer.reasoning.summary ?? '';
    if (summary !== '') {
      const part = { type: 'summary_text', text: '' };
      emit('response.reasoning_summary_part.added', { item_id: id, output_index, summary_index: 0, part });
      for (const delta of splitCodePoints(summary, textChunkSize)) {
        emit('response.reasoning_summary_text.delta', { item_id: id, output_index, summary_index: 0, delta });
      }
      emit('response.reasoning_summary_text.done', { item_id: id, output_index, summary_index: 0, text: summary });
      emit('response.reasoning_summary_part.done', {
        item_id: id,
        output_index,
        summary_index: 0,
        part: { type: 'summary_text', text: summary },
      });
    }
    const item = {
      id,
      type: 'reasoning',
      summary: summary === '' ? [] : [{ type: 'summary_text', text: summary }],
      ...(answer.reasoning.encryptedContent === undefined
        ? {}
        : { encrypted_content: answer.reasoning.encryptedContent }),
    };
    emit('response.output_item.done', { output_index, item });
    output.push(item);
  }

  const text = answer.text ?? '';
  if (text !== '' || answer.refusal !== undefined) {
    const output_index = output.length;
    const id = `msg_fake_${output_index}`;
    emit('response.output_item.added', {
      output_index,
      item: { id, type: 'message', status: 'in_progress', content: [], role: 'assistant' },
    });
    const refusal = answer.refusal;
    const part =
      refusal === undefined
        ? { type: 'output_text', annotations: [], logprobs: [], text }
        : { type: 'refusal', refusal };
    const empty = refusal === undefined ? { ...part, text: '' } : { type: 'refusal', refusal: '' };
    const where = { item_id: id, output_index, content_index: 0 };
    emit('response.content_part.added', { ...where, part: empty });
    if (refusal === undefined) {
      for (const delta of splitCodePoints(text, textChunkSize)) {
        emit('response.output_text.delta', { ...where, delta, logprobs: [] });
      }
      emit('response.output_text.done', { ...where, text, logprobs: [] });
    } else {
      for (const delta of splitCodePoints(refusal, textChunkSize)) emit('response.refusal.delta', { ...where, delta });
      emit('response.refusal.done', { ...where, refusal });
    }
    emit('response.content_part.done', { ...where, part });
    const item = { id, type: 'message', status: 'completed', content: [part], role: 'assistant' };
    emit('response.output_item.done', { output_index, item });
    output.push(item);
  }

  for (const [position, call] of (answer.toolCalls ?? []).entries()) {
    const output_index = output.length;
    const id = `fc_fake_${output_index}`;
    const head = {
      id,
      type: 'function_call',
      status: 'in_progress',
      arguments: '',
      call_id: call.id ?? `call_${position + 1}`,
      name: call.name,
    };
    emit('response.output_item.added', { output_index, item: head });
    for (const delta of splitUnits(call.arguments, answer.argumentChunkSize ?? Math.max(call.arguments.length, 1))) {
      emit('response.function_call_arguments.delta', { item_id: id, output_index, delta });
    }
    emit('response.function_call_arguments.done', {
      item_id: id,
      output_index,
      name: call.name,
      arguments: call.arguments,
    });
    const item = { ...head, status: 'completed', arguments: call.arguments };
    emit('response.output_item.done', { output_index, item });
    output.push(item);
  }

  const status = answer.status ?? 'completed';
  emit(status === 'incomplete' ? 'response.incomplete' : 'response.completed', {
    response: responseObject(answer, identity, status, output),
  });
  return events;
}

/**
 * The same answer as one non-streamed `response` object.
 *
 * @example
 * const body = toResponseObject({ text: 'Hello' }, { id: 'resp_1', model: 'gpt-5-mini' });
 */
export function toResponseObject(answer: FakeResponsesAnswer, identity: ResponseIdentity): Record<string, unknown> {
  const events = toResponseEvents(answer, identity);
  const last = events.at(-1) as { response: Record<string, unknown> };
  return last.response;
}

function responseObject(
  answer: FakeResponsesAnswer,
  identity: ResponseIdentity,
  status: 'in_progress' | 'completed' | 'incomplete',
  output: readonly Record<string, unknown>[],
): Record<string, unknown> {
  const usage = answer.usage === undefined ? defaultUsage : answer.usage;
  const done = status !== 'in_progress';
  return {
    id: identity.id,
    object: 'response',
    created_at: identity.createdAt ?? 0,
    status,
    background: false,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: answer.incompleteReason ?? 'max_output_tokens' } : null,
    instructions: null,
    max_output_tokens: null,
    model: identity.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: 1,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage: done && usage !== null ? toWireUsage(usage) : null,
    metadata: {},
  };
}

function toWireUsage({ promptTokens, completionTokens, cachedTokens = 0 }: FakeUsage) {
  return {
    input_tokens: promptTokens,
    input_tokens_details: { cached_tokens: cachedTokens },
    output_tokens: completionTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: promptTokens + completionTokens,
  };
}

function splitCodePoints(text: string, size: number): string[] {
  const points = Array.from(text);
  const pieces: string[] = [];
  for (let start = 0; start < points.length; start += size) pieces.push(points.slice(start, start + size).join(''));
  return pieces;
}

function splitUnits(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}
