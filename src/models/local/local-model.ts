import type { AssistantMessage, ToolCall } from '../../core/chat-message.js';
import type { Model, ModelRequest, ModelResponse } from '../model.js';
import { distinctCalls, writesACallAgain } from './distinct-calls.js';
import { loadLocalRuntime } from './load-local-runtime.js';
import type {
  LocalChatWrapper,
  LocalCompletion,
  LocalContextSequence,
  LocalContextState,
  LocalLlamaModel,
  LocalToken,
} from './local-runtime.js';
import { type CallSyntax, firstValueEnd, parseToolCalls } from './parse-tool-calls.js';
import { createTextStreamer } from './text-streamer.js';
import { toChatFunctions, toChatHistory } from './to-chat-history.js';
import { toolResultsAsText } from './tool-results-as-text.js';

export interface LocalModelOptions {
  /** Path of a GGUF model file. */
  readonly file: string;
  /** The name reported as `Model.name`; default `local:<file name>`. */
  readonly name?: string;
  /** CPU threads for evaluation; default 1 (a shared machine). */
  readonly threads?: number;
  /** Context window in tokens; default 4096. */
  readonly contextSize?: number;
  /** 0 (default) decodes greedily: the same conversation always gives the same answer. */
  readonly temperature?: number;
  /** Sampling seed when `temperature` is above 0; default 0. */
  readonly seed?: number;
  /** Upper bound on generated tokens when the request gives none; default 512. */
  readonly maxOutputTokens?: number;
  /**
   * Stop generating as soon as the first call is complete (its JSON closed): one call per answer, and no
   * tokens spent on what a small model writes after it. Default false (parallel calls are kept).
   */
  readonly stopAfterFirstCall?: boolean;
  /**
   * Stop generating when this many tokens are written and no call has begun (no call marker, fence or `{`):
   * the answer is prose, read as no call. Default: never (the whole answer is written).
   */
  readonly stopIfNoCallWithin?: number;
  /**
   * Conversations generated at once: each has its own context sequence (its own cache of the prompt), and
   * concurrent `generate` calls are evaluated in the same batches. A call takes the free sequence whose
   * cached tokens share the longest prefix with its prompt. Default 1 (calls wait their turn).
   */
  readonly sequences?: number;
}

interface Slot {
  readonly sequence: LocalContextSequence;
  readonly completion: LocalCompletion;
  busy: boolean;
}

interface Loaded {
  readonly model: LocalLlamaModel;
  readonly slots: readonly Slot[];
  readonly chatWrapper: LocalChatWrapper;
  readonly syntax: CallSyntax | undefined;
}

/**
 * A GGUF model file on this machine as arbiter's model, through the optional
 * `node-llama-cpp` runtime (CPU). The conversation and the tools are rendered
 * with the model's own chat template (tools listed the way the template lists
 * them), the answer streams as text deltas, and the calls are read from the
 * template's call syntax as the model wrote them: nothing constrains the
 * arguments, so arbiter's validation sees the model's real mistakes. A call
 * written a second time in the same answer (a small model's loop) stops
 * generation there and is kept once.
 * Decoding is greedy by default; one context sequence is kept, so a
 * conversation that grows by a turn re-evaluates only the new tokens
 * (`usage.cachedInputTokens` counts the reused ones). Loading happens on the
 * first call; a missing, unreadable or unsupported file, or a missing runtime,
 * is a `LocalModelError`.
 *
 * @example
 * const model = new LocalModel({ file: 'models/qwen2.5-coder-0.5b-instruct.gguf' });
 * const response = await model.generate({ messages, tools: registry.specs() });
 */
export class LocalModel implements Model {
  readonly name: string;
  readonly file: string;
  readonly #options: Required<Omit<LocalModelOptions, 'file' | 'name' | 'stopIfNoCallWithin'>> & {
    readonly stopIfNoCallWithin: number | undefined;
  };
  #loaded: Promise<Loaded> | undefined;
  #callCount = 0;
  readonly #waiting: (() => void)[] = [];

  constructor({
    file,
    name,
    threads = 1,
    contextSize = 4096,
    temperature = 0,
    seed = 0,
    maxOutputTokens = 512,
    stopAfterFirstCall = false,
    stopIfNoCallWithin,
    sequences = 1,
  }: LocalModelOptions) {
    this.file = file;
    this.name = name ?? `local:${file.split(/[\\/]/).pop() ?? file}`;
    this.#options = {
      threads,
      contextSize,
      temperature,
      seed,
      maxOutputTokens,
      stopAfterFirstCall,
      stopIfNoCallWithin,
      sequences,
    };
  }

  /** Loads the file now instead of on the first call (a `LocalModelError` when it cannot). */
  async load(): Promise<void> {
    await this.#load();
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    request.signal?.throwIfAborted();
    const { model, slots, chatWrapper, syntax } = await this.#load();
    const functions = request.tools.length > 0 ? toChatFunctions({ tools: request.tools }) : undefined;
    const state = chatWrapper.generateContextState({
      chatHistory: toChatHistory({ messages: request.messages }),
      ...(functions === undefined ? {} : { availableFunctions: functions, documentFunctionParams: true }),
    });
    const tokens = state.contextText.tokenize(model.tokenizer);
    const slot = await this.#acquire({ slots, tokens });
    try {
      return await this.#generateOn({ slot, request, state, tokens, syntax });
    } finally {
      this.#release(slot);
    }
  }

  async #generateOn({
    slot,
    request,
    state,
    tokens,
    syntax,
  }: {
    slot: Slot;
    request: ModelRequest;
    state: LocalContextState;
    tokens: LocalToken[];
    syntax: CallSyntax | undefined;
  }): Promise<ModelResponse> {
    const { sequence, completion } = slot;
    const cachedInputTokens = commonPrefixLength(sequence.contextTokens, tokens);
    const streamer = createTextStreamer({
      markers: ['<tool_call>', '```', '{', ...(syntax === undefined ? [] : [syntax.prefix.trim()])],
      ...(request.onTextDelta === undefined ? {} : { onText: request.onTextDelta }),
    });
    let outputTokens = 0;
    let written = '';
    const firstCallDone = new AbortController();
    const signal =
      request.signal === undefined ? firstCallDone.signal : AbortSignal.any([request.signal, firstCallDone.signal]);
    const { response, metadata } = await completion.generateCompletionWithMeta(tokens, {
      maxTokens: request.maxOutputTokens ?? this.#options.maxOutputTokens,
      temperature: this.#options.temperature,
      seed: this.#options.seed,
      repeatPenalty: false,
      customStopTriggers: state.stopGenerationTriggers,
      onTextChunk: (chunk) => {
        streamer.push(chunk);
        written += chunk;
        if (this.#options.stopAfterFirstCall && hasCompleteCall(written, syntax)) firstCallDone.abort();
        // A small model, greedy, that writes a call it already wrote in this answer writes it on and on.
        else if (writesACallAgain({ text: written, syntax })) firstCallDone.abort();
      },
      onToken: (generated) => {
        outputTokens += generated.length;
        const within = this.#options.stopIfNoCallWithin;
        if (within !== undefined && outputTokens >= within && !callBegun(written, syntax)) firstCallDone.abort();
      },
      signal,
      stopOnAbortSignal: true,
    });
    request.signal?.throwIfAborted();
    streamer.end();
    const parsed = parseToolCalls({ text: response, syntax });
    const toolCalls: ToolCall[] = distinctCalls(parsed.calls).map((call) => ({
      id: `call_${++this.#callCount}`,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
    const message: AssistantMessage =
      toolCalls.length > 0
        ? { role: 'assistant', content: parsed.content, tool_calls: toolCalls }
        : { role: 'assistant', content: parsed.content ?? '' };
    return {
      message,
      finishReason: toolCalls.length > 0 ? 'tool_calls' : metadata.stopReason === 'maxTokens' ? 'length' : 'stop',
      usage: { inputTokens: tokens.length, outputTokens, cachedInputTokens },
      model: this.name,
    };
  }

  async #acquire({ slots, tokens }: { slots: readonly Slot[]; tokens: readonly LocalToken[] }): Promise<Slot> {
    for (;;) {
      let best: Slot | undefined;
      let bestShared = -1;
      for (const slot of slots) {
        if (slot.busy) continue;
        const shared = commonPrefixLength(slot.sequence.contextTokens, tokens);
        if (shared > bestShared) {
          best = slot;
          bestShared = shared;
        }
      }
      if (best !== undefined) {
        best.busy = true;
        return best;
      }
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
  }

  #release(slot: Slot): void {
    slot.busy = false;
    this.#waiting.shift()?.();
  }

  #load(): Promise<Loaded> {
    this.#loaded ??= this.#open().catch((error: unknown) => {
      this.#loaded = undefined;
      throw error;
    });
    return this.#loaded;
  }

  async #open(): Promise<Loaded> {
    const { runtime, model } = await loadLocalRuntime({ file: this.file });
    const context = await model.createContext({
      contextSize: this.#options.contextSize,
      threads: this.#options.threads,
      sequences: this.#options.sequences,
    });
    const slots = Array.from({ length: this.#options.sequences }, () => {
      const sequence = context.getSequence();
      return { sequence, completion: new runtime.LlamaCompletion({ contextSequence: sequence }), busy: false };
    });
    const chatWrapper = toolResultsAsText({ chatWrapper: runtime.resolveChatWrapper(model), runtime });
    return { model, slots, chatWrapper, syntax: callSyntaxOf(chatWrapper) };
  }
}

function callSyntaxOf(chatWrapper: LocalChatWrapper): CallSyntax | undefined {
  const call = chatWrapper.settings.functions.call;
  return {
    prefix: textOf(call.prefix),
    paramsPrefix: textOf(call.paramsPrefix),
    suffix: textOf(call.suffix),
  };
}

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && 'toString' in value) return String(value);
  return '';
}

/**
 * True once `text` holds a whole first call: a JSON value closed after `<tool_call>`, the template's call
 * prefix, a code fence, or at the start.
 */
function hasCompleteCall(text: string, syntax: CallSyntax | undefined): boolean {
  const prefix = syntax?.prefix.trim() ?? '';
  const starts = [text.indexOf('<tool_call>'), prefix === '' ? -1 : text.indexOf(prefix), text.indexOf('```')];
  const marked = starts.filter((index) => index >= 0);
  const from = marked.length > 0 ? Math.min(...marked) : text.trimStart().startsWith('{') ? 0 : -1;
  if (from < 0) return false;
  const open = text.slice(from).search(/[{[]/);
  return open >= 0 && firstValueEnd(text.slice(from + open)) !== undefined;
}

/** True once `text` has begun a call: the template's call prefix, `<tool_call>`, a code fence or a `{`. */
function callBegun(text: string, syntax: CallSyntax | undefined): boolean {
  const prefix = syntax?.prefix.trim();
  return (
    text.includes('<tool_call>') ||
    text.includes('```') ||
    text.includes('{') ||
    (prefix !== undefined && prefix !== '' && text.includes(prefix))
  );
}

function commonPrefixLength(left: readonly LocalToken[], right: readonly LocalToken[]): number {
  const limit = Math.min(left.length, right.length);
  let index = 0;
  while (index < limit && left[index] === right[index]) index += 1;
  return index;
}
