import type OpenAI from 'openai';
import type {
  FunctionTool,
  ResponseCreateParamsStreaming,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import type { ChatMessage } from '../core/chat-message.js';
import type { ToolSpec } from '../core/tool-spec.js';
import { ModelError } from '../errors/model-error.js';
import { createResponseAssembler } from './assemble-response-stream.js';
import { callOpenAiEndpoint, createOpenAiClient } from './call-openai-endpoint.js';
import type { Model, ModelRequest, ModelResponse } from './model.js';
import { assertUsableBaseUrl, EndpointFailures } from './openai-endpoint-failures.js';
import type { OpenAiModelOptions } from './openai-model.js';
import { toStrictTool } from './strict-tools.js';

export interface OpenAiResponsesModelOptions
  extends Pick<OpenAiModelOptions, 'baseUrl' | 'apiKey' | 'model' | 'timeoutMs' | 'fetch' | 'extraBody' | 'strict'> {
  /**
   * Let the provider keep each response (`store: true`), so the next
   * request may name it with `previous_response_id`. Default false: every
   * request carries the whole conversation, reasoning items included as
   * encrypted content, and the provider keeps nothing.
   */
  readonly store?: boolean;
  /**
   * With `store`, send only what came after the last answer and name that
   * answer with `previous_response_id` (the provider holds the rest).
   * Default false. A conversation whose earlier messages arbiter compressed
   * is still continued from the provider's copy.
   */
  readonly previousResponseId?: boolean;
  /**
   * Ask for reasoning items' encrypted content (`include:
   * ['reasoning.encrypted_content']`). Default: when `store` is false.
   */
  readonly encryptedReasoning?: boolean;
}

/**
 * A `Model` on OpenAI's Responses API (`POST /responses`), via the official
 * `openai` SDK, behind the same interface as `OpenAiModel` and so the same
 * `ResilientModel` policies (retries, Retry-After, fallback):
 *
 * - the conversation goes out as items: messages, each assistant tool call
 *   as a `function_call` item, each tool result as `function_call_output`;
 * - it always streams: `response.output_text.delta` goes to `onTextDelta`,
 *   function call arguments are assembled from
 *   `response.function_call_arguments.delta` (parallel calls too);
 * - reasoning items come back on the assistant message (`reasoning`, with
 *   their encrypted content unless `store`) and are sent again with the
 *   next request, so a reasoning model keeps its chain of thought across
 *   tool calls; with `store` and `previousResponseId` the request names the
 *   previous response instead of repeating the conversation;
 * - a refusal is the message's content and `response.refusal`, finish
 *   reason `content_filter`; `incomplete` because of `max_output_tokens` is
 *   finish reason `length` (a `ResilientModel` retries truncated tool calls);
 * - usage maps to `inputTokens`, `outputTokens`, `cachedInputTokens`.
 *
 * Failures are the same `ModelError`s as `OpenAiModel`'s, naming endpoint
 * and model, never the key; `response.failed` and stream `error` events are
 * `ModelError`s too (`rate_limit_exceeded` is `rate_limited`). An abort of
 * `request.signal` rejects with the signal's reason.
 *
 * @example
 * const model = new OpenAiResponsesModel({ baseUrl: 'https://api.openai.com/v1', apiKey, model: 'gpt-5-mini' });
 * const { message } = await model.generate({ messages, tools: registry.specs, onTextDelta: (text) => process.stdout.write(text) });
 */
export class OpenAiResponsesModel implements Model {
  readonly name: string;
  readonly #client: OpenAI;
  readonly #model: string;
  readonly #timeoutMs: number;
  readonly #extraBody: Readonly<Record<string, unknown>>;
  readonly #strict: boolean;
  readonly #store: boolean;
  readonly #chain: boolean;
  readonly #encryptedReasoning: boolean;
  readonly #failures: EndpointFailures;
  readonly #tools = new WeakMap<ToolSpec, FunctionTool>();

  constructor({
    baseUrl,
    apiKey,
    model,
    timeoutMs = 60_000,
    fetch,
    extraBody = {},
    strict = false,
    store = false,
    previousResponseId = false,
    encryptedReasoning = !store,
  }: OpenAiResponsesModelOptions) {
    assertUsableBaseUrl(baseUrl);
    this.name = model;
    this.#model = model;
    this.#timeoutMs = Math.max(1, Math.round(timeoutMs));
    this.#extraBody = extraBody;
    this.#strict = strict;
    this.#store = store;
    this.#chain = store && previousResponseId;
    this.#encryptedReasoning = encryptedReasoning;
    this.#failures = new EndpointFailures({ baseUrl, apiKey, model, timeoutMs: this.#timeoutMs });
    this.#client = createOpenAiClient({ baseUrl, apiKey, timeoutMs: this.#timeoutMs, fetch });
  }

  /** True when tools are sent in strict mode, so optional arguments may arrive as `null`. */
  get strictTools(): boolean {
    return this.#strict;
  }

  async generate({ messages, tools, signal, onTextDelta, maxOutputTokens }: ModelRequest): Promise<ModelResponse> {
    const assembler = createResponseAssembler();
    return callOpenAiEndpoint({
      request: (stop) =>
        this.#client.responses
          .create(this.#body({ messages, tools, maxOutputTokens }), { signal: stop })
          .withResponse(),
      pushItem: (event) => this.#withContext(() => assembler.push(event)),
      pushWhole: (response) => this.#withContext(() => assembler.pushResponse(response)),
      finish: () => {
        const { responseId: _responseId, ...result } = this.#withContext(() => assembler.finish());
        return result;
      },
      signal,
      timeoutMs: this.#timeoutMs,
      failures: this.#failures,
      onTextDelta,
    });
  }

  /**
   * The request body: the conversation as input items (only what follows
   * the previous response when chaining), tools in a fixed key order
   * (memoised per spec) so the prefix stays byte-identical for caching.
   */
  #body({
    messages,
    tools,
    maxOutputTokens,
  }: {
    messages: readonly ChatMessage[];
    tools: readonly ToolSpec[];
    maxOutputTokens: number | undefined;
  }): ResponseCreateParamsStreaming {
    const previous = this.#chain ? lastResponse(messages) : undefined;
    const sent = previous === undefined ? messages : messages.slice(previous.index + 1);
    return {
      ...this.#extraBody,
      ...(maxOutputTokens === undefined ? {} : { max_output_tokens: Math.max(16, Math.floor(maxOutputTokens)) }),
      model: this.#model,
      input: sent.flatMap((message) => toInputItems(message, previous === undefined)),
      ...(previous === undefined ? {} : { previous_response_id: previous.id }),
      ...(tools.length > 0 ? { tools: tools.map((tool) => this.#tool(tool)) } : {}),
      store: this.#store,
      ...(this.#encryptedReasoning ? { include: ['reasoning.encrypted_content'] } : {}),
      stream: true,
    };
  }

  #tool(spec: ToolSpec): FunctionTool {
    let tool = this.#tools.get(spec);
    if (tool === undefined) {
      const { name, description, parameters, strict } = this.#strict
        ? toStrictTool(spec).tool.function
        : { ...spec.function, strict: false };
      // The Responses API makes tools strict unless told otherwise: `strict` is always sent.
      tool = { type: 'function', name, description, parameters, strict };
      this.#tools.set(spec, tool);
    }
    return tool;
  }

  /** Runs an assembler step, naming the endpoint and model (and removing secrets) in its error. */
  #withContext<T>(step: () => T): T {
    try {
      return step();
    } catch (error) {
      if (ModelError.isInstance(error) && error.endpoint === undefined) {
        throw this.#failures.error(error.kind, error.message, {
          status: error.status,
          retryAfterMs: error.retryAfterMs,
        });
      }
      throw error;
    }
  }
}

/** The last assistant message that is a stored response, and where it is. */
function lastResponse(messages: readonly ChatMessage[]): { id: string; index: number } | undefined {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role === 'assistant' && message.response_id !== undefined) return { id: message.response_id, index };
  }
  return undefined;
}

/**
 * One message as Responses input items. An assistant message becomes its
 * reasoning items (when sent in full), its text, then one `function_call`
 * per tool call; a tool message becomes a `function_call_output`.
 */
function toInputItems(message: ChatMessage, withReasoning: boolean): ResponseInputItem[] {
  switch (message.role) {
    case 'system':
    case 'user':
      return [{ type: 'message', role: message.role, content: message.content }];
    case 'tool':
      return [{ type: 'function_call_output', call_id: message.tool_call_id, output: message.content }];
    case 'assistant': {
      const items: ResponseInputItem[] = [];
      if (withReasoning) {
        for (const item of message.reasoning ?? []) {
          items.push({
            type: 'reasoning',
            id: item.id,
            summary: [],
            ...(item.encrypted_content === undefined ? {} : { encrypted_content: item.encrypted_content }),
          });
        }
      }
      if (message.content !== null && message.content !== '') {
        items.push({ type: 'message', role: 'assistant', content: message.content });
      }
      for (const call of message.tool_calls ?? []) {
        items.push({
          type: 'function_call',
          call_id: call.id,
          name: call.function.name,
          arguments: call.function.arguments,
        });
      }
      return items;
    }
  }
}
