import type { ToolSpec } from '../../core/tool-spec.js';
import type { Model, ModelRequest, ModelResponse } from '../model.js';
import { toStrictTool } from '../strict-tools.js';
import { AiSdkFailures } from './ai-sdk-failures.js';
import { createSpecStreamAssembler } from './assemble-spec-stream.js';
import { generateResultParts } from './generate-result-parts.js';
import type {
  AiSdkLanguageModel,
  SpecCallOptions,
  SpecFunctionTool,
  SpecJsonObject,
  SpecProviderOptions,
  SpecStreamPart,
} from './language-model-spec.js';
import { toSpecPrompt } from './to-spec-prompt.js';

export interface AiSdkModelOptions {
  /**
   * This model's `name`, the id prices are looked up by (`prices` in the
   * loop and the server). Default: the provider's model id.
   */
  readonly name?: string;
  /**
   * Longest wait, in milliseconds, for the response to start and then
   * between two stream parts (an idle timeout). Default 60 000.
   */
  readonly timeoutMs?: number;
  /**
   * Send tools with `strict: true` and schemas rewritten as `toStrictTools`
   * does, for providers that enforce tool schemas (Anthropic's strict tool
   * use); optional fields then arrive as `null` and the loop maps them back.
   * A tool whose schema cannot be strict goes as it is. Default false.
   */
  readonly strict?: boolean;
  /**
   * The provider's own options for every call, by provider name, e.g.
   * `{ anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } } }`
   * or `{ google: { thinkingConfig: { includeThoughts: true } } }`.
   */
  readonly providerOptions?: SpecProviderOptions;
  /**
   * Provider options on the last system message that opens the
   * conversation, e.g. `{ anthropic: { cacheControl: { type: 'ephemeral' } } }`:
   * an Anthropic cache breakpoint there caches the tools and the system
   * prompt, the prefix arbiter keeps byte-identical on every step.
   */
  readonly systemProviderOptions?: SpecProviderOptions;
  /** Extra HTTP headers for every call. */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * arbiter's `Model` over any AI SDK provider's language model: a
 * `LanguageModelV3` (AI SDK 6 providers, `@ai-sdk/*@3`) or a
 * `LanguageModelV4` (AI SDK 7 providers). Everything arbiter does with a
 * model holds through it:
 *
 * - it streams (`doStream`): text deltas go to `onTextDelta`, tool
 *   calls (parallel ones too) are whole when the stream ends; a model that
 *   does not stream (no `doStream`, or the AI SDK's mocks built with
 *   `doGenerate` only, whose `doStream` throws "Not implemented") is called
 *   with `doGenerate`, its text going to `onTextDelta` in one piece;
 * - thinking blocks (Anthropic `thinking` with its signature, redacted
 *   thinking, Gemini thoughts and thought signatures) are kept on the
 *   assistant message (`thinking`, `provider_metadata`), stored with the
 *   session, and sent back unchanged on the next request, so the model
 *   keeps its reasoning across tool calls;
 * - tools go out in the order given, each converted once (memoised per
 *   spec), so the system prompt and tools make the same request prefix on
 *   every step; `strict` sends strict schemas where the provider has them;
 * - usage maps to `inputTokens`, `outputTokens` and `cachedInputTokens`
 *   (the provider's cache reads), so `prices` and budgets work as with
 *   OpenAI models;
 * - failures are `ModelError`s classified like the OpenAI clients'
 *   (network, timeout, 429 with its Retry-After, 5xx and 529, 4xx), so a
 *   `ResilientModel` retries, waits and falls back as it does for them;
 *   the provider's own retries are not used (the model is called directly).
 *
 * An abort of `request.signal` rejects with the signal's reason.
 *
 * @example
 * import { anthropic } from '@ai-sdk/anthropic';
 * import { aiSdkModel } from '@arbiter-runtime/core/ai-sdk';
 *
 * const model = aiSdkModel(anthropic('claude-sonnet-4-5'));
 * const { message, usage } = await model.generate({ messages, tools: registry.specs });
 */
export function aiSdkModel(languageModel: AiSdkLanguageModel, options: AiSdkModelOptions = {}): AiSdkModel {
  return new AiSdkModel({ languageModel, ...options });
}

/**
 * The class behind `aiSdkModel`.
 *
 * @example
 * const model = new AiSdkModel({ languageModel: google('gemini-2.5-flash'), timeoutMs: 30_000 });
 */
export class AiSdkModel implements Model {
  readonly name: string;
  readonly #languageModel: AiSdkLanguageModel;
  readonly #timeoutMs: number;
  readonly #strict: boolean;
  readonly #providerOptions: SpecProviderOptions | undefined;
  readonly #systemProviderOptions: SpecProviderOptions | undefined;
  readonly #headers: Readonly<Record<string, string>> | undefined;
  readonly #failures: AiSdkFailures;
  readonly #tools = new WeakMap<ToolSpec, SpecFunctionTool>();
  /** Set once `doStream` said it is not implemented: `doGenerate` from then on. */
  #generateOnly = false;

  constructor({
    languageModel,
    name = languageModel.modelId,
    timeoutMs = 60_000,
    strict = false,
    providerOptions,
    systemProviderOptions,
    headers,
  }: AiSdkModelOptions & { readonly languageModel: AiSdkLanguageModel }) {
    this.name = name;
    this.#languageModel = languageModel;
    this.#timeoutMs = Math.max(1, Math.round(timeoutMs));
    this.#strict = strict;
    this.#providerOptions = providerOptions;
    this.#systemProviderOptions = systemProviderOptions;
    this.#headers = headers;
    this.#failures = new AiSdkFailures({ provider: languageModel.provider, model: languageModel.modelId });
  }

  /** True when tools are sent in strict mode, so optional arguments may arrive as `null`. */
  get strictTools(): boolean {
    return this.#strict;
  }

  async generate({ messages, tools, signal, onTextDelta, maxOutputTokens }: ModelRequest): Promise<ModelResponse> {
    signal?.throwIfAborted();
    const stop = new AbortController();
    let idle = false;
    const idleTimer = setTimeout(() => {
      idle = true;
      stop.abort();
    }, this.#timeoutMs);
    const onCallerAbort = () => stop.abort();
    signal?.addEventListener('abort', onCallerAbort, { once: true });
    const failure = (error: unknown): unknown => {
      if (signal?.aborted) return signal.reason;
      if (idle) return this.#failures.error('timeout', `the provider did not answer within ${this.#timeoutMs} ms`);
      return this.#failures.toModelError(error);
    };

    let reader: ReadableStreamDefaultReader<SpecStreamPart> | undefined;
    try {
      const options: SpecCallOptions = {
        prompt: toSpecPrompt(messages, { systemProviderOptions: this.#systemProviderOptions }),
        abortSignal: stop.signal,
        ...(tools.length === 0 ? {} : { tools: tools.map((tool) => this.#tool(tool)), toolChoice: { type: 'auto' } }),
        ...(maxOutputTokens === undefined ? {} : { maxOutputTokens: Math.max(1, Math.floor(maxOutputTokens)) }),
        ...(this.#providerOptions === undefined ? {} : { providerOptions: this.#providerOptions }),
        ...(this.#headers === undefined ? {} : { headers: { ...this.#headers } }),
      };
      let stream: ReadableStream<SpecStreamPart>;
      try {
        stream = await this.#open(options);
      } catch (error) {
        throw failure(error);
      }
      idleTimer.refresh();
      reader = stream.getReader();
      const assembler = createSpecStreamAssembler();
      for (;;) {
        let next: Awaited<ReturnType<typeof reader.read>>;
        try {
          next = await reader.read();
        } catch (error) {
          throw failure(error);
        }
        if (stop.signal.aborted) throw failure(undefined);
        if (next.done) break;
        idleTimer.refresh();
        const effect = assembler.push(next.value);
        if (effect.kind === 'error') throw failure(effect.error);
        if (effect.kind === 'text') onTextDelta?.(effect.text);
      }
      const { finished, ...answer } = assembler.finish();
      if (!finished) {
        throw this.#failures.error('network', 'the stream ended before the answer was complete');
      }
      return answer;
    } finally {
      clearTimeout(idleTimer);
      signal?.removeEventListener('abort', onCallerAbort);
      reader?.cancel().catch(() => {});
    }
  }

  /** The answer's parts: `doStream`'s stream, or `doGenerate`'s result as one when the model does not stream. */
  async #open(options: SpecCallOptions): Promise<ReadableStream<SpecStreamPart>> {
    const model = this.#languageModel;
    const generate = typeof model.doGenerate === 'function' ? model.doGenerate.bind(model) : undefined;
    if (generate === undefined || (!this.#generateOnly && typeof model.doStream === 'function')) {
      try {
        return (await model.doStream(options)).stream;
      } catch (error) {
        if (generate === undefined || !(error instanceof Error && error.message === 'Not implemented')) throw error;
        this.#generateOnly = true;
      }
    }
    const parts = generateResultParts(await generate(options));
    return new ReadableStream<SpecStreamPart>({
      start(controller) {
        for (const part of parts) controller.enqueue(part);
        controller.close();
      },
    });
  }

  /** A tool as the spec sends it: the same object for the same spec, so every step sends the same bytes. */
  #tool(spec: ToolSpec): SpecFunctionTool {
    let tool = this.#tools.get(spec);
    if (tool === undefined) {
      const strict = this.#strict ? toStrictTool(spec).tool.function : undefined;
      const { name, description, parameters } = strict ?? spec.function;
      tool = {
        type: 'function',
        name,
        description,
        inputSchema: structuredClone(parameters) as SpecJsonObject,
        ...(strict === undefined ? {} : { strict: strict.strict }),
      };
      this.#tools.set(spec, tool);
    }
    return tool;
  }
}
