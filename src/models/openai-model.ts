import type OpenAI from 'openai';
import type { ClientOptions } from 'openai';
import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ChatMessage } from '../core/chat-message.js';
import type { ToolSpec } from '../core/tool-spec.js';
import { ModelError } from '../errors/model-error.js';
import { createStreamAssembler } from './assemble-stream.js';
import { callOpenAiEndpoint, createOpenAiClient } from './call-openai-endpoint.js';
import type { Model, ModelRequest, ModelResponse } from './model.js';
import { assertUsableBaseUrl, EndpointFailures } from './openai-endpoint-failures.js';
import { toStrictTool } from './strict-tools.js';

export { parseRetryAfter } from './openai-endpoint-failures.js';

export interface OpenAiModelOptions {
  /** An OpenAI-compatible base URL, e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`. */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** The model id sent as `model`; also this model's `name`. */
  readonly model: string;
  /**
   * Longest wait, in milliseconds, for the response to start and then
   * between two stream chunks (an idle timeout, so long answers are fine).
   * Default 60 000.
   */
  readonly timeoutMs?: number;
  /** A `fetch` to use instead of the global one (proxies, tests). */
  readonly fetch?: ClientOptions['fetch'];
  /** Extra request-body fields, e.g. `{ temperature: 0 }`; they never override model, messages, tools or streaming. */
  readonly extraBody?: Readonly<Record<string, unknown>>;
  /**
   * Send tools in strict mode (`strict: true`, schemas rewritten by
   * `toStrictTools`), so the provider constrains arguments to the schema.
   * Optional fields then arrive as `null`: map them back with
   * `stripStrictNulls` before validation. Default false.
   */
  readonly strict?: boolean;
  /**
   * The body field that carries `request.maxOutputTokens`: `max_tokens`
   * (default; what OpenAI-compatible servers understand) or
   * `max_completion_tokens` (what OpenAI's reasoning models require).
   */
  readonly outputLimitField?: 'max_tokens' | 'max_completion_tokens';
}

/**
 * A `Model` backed by any OpenAI-compatible chat-completions endpoint, via
 * the official `openai` SDK. It always streams, forwards text fragments to
 * `onTextDelta`, and assembles streamed tool calls into whole ones. The SDK
 * never retries: retrying is arbiter's own policy, driven by `ModelError.kind`.
 *
 * Failures are `ModelError`s (`network`, `timeout`, `rate_limited` with
 * `retryAfterMs`, `server`, `authentication`, `request`, `response`) whose
 * messages name the endpoint and model, never the API key or any header.
 *
 * Abort: when `request.signal` aborts, `generate` rejects with
 * `request.signal.reason` itself — a `DOMException` named `AbortError` unless
 * the caller passed its own reason to `abort()` — never with a `ModelError`.
 * The loop recognises an abort by `signal.aborted`.
 *
 * @example
 * const model = new OpenAiModel({ baseUrl: 'https://api.openai.com/v1', apiKey, model: 'gpt-4o-mini' });
 * const { message, usage } = await model.generate({
 *   messages: [{ role: 'user', content: 'Where is order SO20260901?' }],
 *   tools: registry.specs,
 *   onTextDelta: (text) => process.stdout.write(text),
 * });
 */
export class OpenAiModel implements Model {
  readonly name: string;
  readonly #client: OpenAI;
  readonly #model: string;
  readonly #failures: EndpointFailures;
  readonly #timeoutMs: number;
  readonly #extraBody: Readonly<Record<string, unknown>>;
  readonly #strict: boolean;
  readonly #outputLimitField: 'max_tokens' | 'max_completion_tokens';

  constructor({
    baseUrl,
    apiKey,
    model,
    timeoutMs = 60_000,
    fetch,
    extraBody = {},
    strict = false,
    outputLimitField = 'max_tokens',
  }: OpenAiModelOptions) {
    this.name = model;
    this.#model = model;
    assertUsableBaseUrl(baseUrl);
    this.#timeoutMs = Math.max(1, Math.round(timeoutMs));
    this.#failures = new EndpointFailures({ baseUrl, apiKey, model, timeoutMs: this.#timeoutMs });
    this.#extraBody = extraBody;
    this.#strict = strict;
    this.#outputLimitField = outputLimitField;
    this.#client = createOpenAiClient({ baseUrl, apiKey, timeoutMs: this.#timeoutMs, fetch });
  }

  /** True when tools are sent in strict mode, so optional arguments may arrive as `null`. */
  get strictTools(): boolean {
    return this.#strict;
  }

  async generate({ messages, tools, signal, onTextDelta, maxOutputTokens }: ModelRequest): Promise<ModelResponse> {
    const assembler = createStreamAssembler();
    return callOpenAiEndpoint({
      request: (stop) =>
        this.#client.chat.completions
          .create(this.#body({ messages, tools, maxOutputTokens }), { signal: stop })
          .withResponse(),
      pushItem: (chunk) => this.#withContext(() => assembler.push(chunk)),
      pushWhole: (completion) => this.#withContext(() => assembler.push(completionToChunk(completion))),
      finish: () => this.#withContext(() => assembler.finish()),
      signal,
      timeoutMs: this.#timeoutMs,
      failures: this.#failures,
      onTextDelta,
    });
  }

  /**
   * The request body. Tools keep the order they are given in and each is
   * rebuilt with a fixed key order (memoised per spec object), so the same
   * system prompt and tool set serialise to the same bytes on every step and
   * the provider's prompt cache can hit.
   */
  #body({
    messages,
    tools,
    maxOutputTokens,
  }: {
    messages: readonly ChatMessage[];
    tools: readonly ToolSpec[];
    maxOutputTokens: number | undefined;
  }): ChatCompletionCreateParamsStreaming {
    const toTool = this.#strict ? toStrictSdkTool : toSdkTool;
    return {
      ...this.#extraBody,
      ...(maxOutputTokens === undefined ? {} : { [this.#outputLimitField]: Math.max(1, Math.floor(maxOutputTokens)) }),
      model: this.#model,
      messages: messages.map(toSdkMessage),
      ...(tools.length > 0 ? { tools: tools.map(toTool) } : {}),
      stream: true,
      stream_options: { include_usage: true },
    };
  }

  /** Runs an assembler step, naming the endpoint and model in a malformed-response error. */
  #withContext<T>(step: () => T): T {
    try {
      return step();
    } catch (error) {
      if (ModelError.isInstance(error) && error.kind === 'response') {
        throw this.#failures.error('response', error.message, { cause: error });
      }
      throw error;
    }
  }
}

/** A non-streamed `chat.completion` recast as one chunk, so one assembler handles both. */
function completionToChunk(completion: unknown): unknown {
  if (typeof completion !== 'object' || completion === null || !('choices' in completion)) return completion;
  const { choices } = completion;
  if (!Array.isArray(choices)) return completion;
  return {
    ...completion,
    choices: choices.map((choice: unknown) => {
      if (typeof choice !== 'object' || choice === null || !('message' in choice)) return choice;
      const { message, ...rest } = choice;
      if (typeof message !== 'object' || message === null) return { ...rest, delta: message };
      const toolCalls = 'tool_calls' in message && Array.isArray(message.tool_calls) ? message.tool_calls : undefined;
      return {
        ...rest,
        delta: {
          ...message,
          tool_calls: toolCalls?.map((call: unknown, index) =>
            typeof call === 'object' && call !== null ? { index, ...call } : call,
          ),
        },
      };
    }),
  };
}

function toSdkMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'assistant': {
      const toolCalls = message.tool_calls ?? [];
      return toolCalls.length === 0
        ? { role: 'assistant', content: message.content }
        : {
            role: 'assistant',
            content: message.content,
            tool_calls: toolCalls.map((call) => ({
              id: call.id,
              type: 'function',
              function: { name: call.function.name, arguments: call.function.arguments },
            })),
          };
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.tool_call_id, content: message.content };
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: message.content };
  }
}

const sdkTools = new WeakMap<ToolSpec, ChatCompletionFunctionTool>();
const strictSdkTools = new WeakMap<ToolSpec, ChatCompletionFunctionTool>();

function toSdkTool(tool: ToolSpec): ChatCompletionFunctionTool {
  let sdkTool = sdkTools.get(tool);
  if (sdkTool === undefined) {
    const { name, description, parameters } = tool.function;
    sdkTool = { type: 'function', function: { name, description, parameters } };
    sdkTools.set(tool, sdkTool);
  }
  return sdkTool;
}

function toStrictSdkTool(tool: ToolSpec): ChatCompletionFunctionTool {
  let sdkTool = strictSdkTools.get(tool);
  if (sdkTool === undefined) {
    const { name, description, parameters, strict } = toStrictTool(tool).tool.function;
    sdkTool = { type: 'function', function: { name, description, parameters, strict } };
    strictSdkTools.set(tool, sdkTool);
  }
  return sdkTool;
}
