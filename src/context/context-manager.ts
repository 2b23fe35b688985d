import type { ChatMessage } from '../core/chat-message.js';
import type { Locale } from '../core/locale.js';
import type { TokenUsage } from '../core/run-usage.js';
import type { ToolSpec } from '../core/tool-spec.js';
import type { ToolSet } from '../tools/tool-registry.js';
import {
  type CachedSummary,
  COMPRESSION_TARGET,
  COMPRESSION_THRESHOLD,
  type CompressionResult,
  type CompressionStage,
  compressContext,
  type PinnedState,
  type Summarize,
} from './compress-context.js';
import { countToolSpecTokens } from './count-tokens.js';
import { createMessageCounter } from './create-message-counter.js';
import { TokenCalibration } from './token-calibration.js';
import { type TruncateOptions, truncateToolResult } from './truncate-tool-result.js';

/** One compression, as logged: which trigger it was and what it did. */
export interface CompressionRecord {
  /** How many times compression has triggered in this context, this one included. */
  readonly trigger: number;
  readonly stage: CompressionStage;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly thresholdTokens: number;
  readonly targetTokens: number;
  readonly fits: boolean;
  readonly stubbedToolResults: number;
  readonly removedMessages: number;
  /** The summary call's usage, when one was made. */
  readonly usage: TokenUsage | undefined;
}

export interface ContextManagerOptions {
  /** The model's context window in tokens. */
  readonly windowTokens: number;
  /** Share of the window at which compression starts. Default {@link COMPRESSION_THRESHOLD}. */
  readonly threshold?: number;
  /** Share of the window compression aims below. Default {@link COMPRESSION_TARGET}. */
  readonly target?: number;
  /** Whether a tool changes something; its results are kept verbatim. See {@link isWriteToolIn}. */
  readonly isWriteTool: (name: string) => boolean;
  /** The last resort; without it compression stops after dropping middle turns. */
  readonly summarize?: Summarize;
  readonly locale?: Locale;
  readonly calibration?: TokenCalibration;
  readonly truncation?: TruncateOptions;
  /** Called on every trigger; wire it to the run's log or events. */
  readonly onCompress?: (record: CompressionRecord) => void;
}

/** What to send to the model, and what preparing it cost. */
export interface PreparedRequest {
  readonly messages: readonly ChatMessage[];
  /** The tokenizer's count of the request (messages and tools), before calibration: pass it to `observe`. */
  readonly estimatedTokens: number;
  /** Set when compression triggered. */
  readonly compression: CompressionResult | undefined;
  /** The summary call's usage, to add to the run's usage and budget. */
  readonly usage: TokenUsage | undefined;
}

/**
 * The loop's one entry point to context management, one per session (or
 * run): `prepare` before each model call (counts the request with the real
 * tokenizer, corrected by the usage reported so far, and compresses when it
 * passes the threshold), `observe` after it (calibrates the count with the
 * reported input tokens), and `truncateToolResult` on every tool result
 * before it enters the conversation. The stored conversation is never
 * changed: compression shapes what one request carries.
 *
 * @example
 * const context = new ContextManager({ windowTokens: 128_000, isWriteTool: isWriteToolIn(registry), summarize: summarizeWithModel({ model }) });
 * const prepared = await context.prepare({ messages: conversation, tools: toolSet.specs, pinned: { slots: session.slots } });
 * const response = await model.generate({ messages: prepared.messages, tools: toolSet.specs });
 * context.observe({ prepared, usage: response.usage });
 */
export class ContextManager {
  readonly windowTokens: number;
  readonly threshold: number;
  readonly target: number;
  readonly calibration: TokenCalibration;
  readonly #options: ContextManagerOptions;
  readonly #count = createMessageCounter();
  #summary: CachedSummary | undefined;
  #triggers = 0;

  constructor(options: ContextManagerOptions) {
    this.#options = options;
    this.windowTokens = options.windowTokens;
    this.threshold = options.threshold ?? COMPRESSION_THRESHOLD;
    this.target = Math.min(options.target ?? COMPRESSION_TARGET, this.threshold);
    this.calibration = options.calibration ?? new TokenCalibration();
  }

  /** How many times compression has triggered. */
  get triggers(): number {
    return this.#triggers;
  }

  get thresholdTokens(): number {
    return Math.floor(this.windowTokens * this.threshold);
  }

  get targetTokens(): number {
    return Math.floor(this.windowTokens * this.target);
  }

  /** The calibrated token count of a request. */
  countTokens({ messages, tools = [] }: { messages: readonly ChatMessage[]; tools?: readonly ToolSpec[] }): number {
    return this.calibration.correct(this.#rawCount(messages, toolTokens(tools)));
  }

  async prepare({
    messages,
    tools = [],
    pinned,
    signal,
  }: {
    messages: readonly ChatMessage[];
    tools?: readonly ToolSpec[];
    pinned?: PinnedState;
    signal?: AbortSignal;
  }): Promise<PreparedRequest> {
    const fixed = toolTokens(tools);
    const count = (candidate: readonly ChatMessage[]) => this.calibration.correct(this.#rawCount(candidate, fixed));
    if (count(messages) <= this.thresholdTokens) {
      return { messages, estimatedTokens: this.#rawCount(messages, fixed), compression: undefined, usage: undefined };
    }
    this.#triggers += 1;
    const compression = await compressContext({
      messages,
      targetTokens: this.targetTokens,
      isWriteTool: this.#options.isWriteTool,
      count,
      ...(pinned === undefined ? {} : { pinned }),
      ...(this.#options.summarize === undefined ? {} : { summarize: this.#options.summarize }),
      ...(this.#summary === undefined ? {} : { previousSummary: this.#summary }),
      ...(this.#options.locale === undefined ? {} : { locale: this.#options.locale }),
      ...(signal === undefined ? {} : { signal }),
    });
    if (compression.summary !== undefined) this.#summary = compression.summary;
    this.#options.onCompress?.({
      trigger: this.#triggers,
      stage: compression.stage,
      tokensBefore: compression.tokensBefore,
      tokensAfter: compression.tokensAfter,
      thresholdTokens: this.thresholdTokens,
      targetTokens: this.targetTokens,
      fits: compression.fits,
      stubbedToolResults: compression.stubbedToolResults,
      removedMessages: compression.removedMessages,
      usage: compression.usage,
    });
    return {
      messages: compression.messages,
      estimatedTokens: this.#rawCount(compression.messages, fixed),
      compression,
      usage: compression.usage,
    };
  }

  /** Calibrates the token count with the input tokens the provider reported for a prepared request. */
  observe({ prepared, usage }: { prepared: PreparedRequest; usage: TokenUsage }): void {
    this.calibration.observe({ estimatedTokens: prepared.estimatedTokens, reportedInputTokens: usage.inputTokens });
  }

  /** {@link truncateToolResult} with this context's limits. */
  truncateToolResult(content: string): string {
    return truncateToolResult(content, this.#options.truncation ?? {});
  }

  #rawCount(messages: readonly ChatMessage[], fixed: number): number {
    return this.#count(messages) + fixed;
  }
}

/**
 * The `isWriteTool` lookup for a registry or tool set: a tool changes
 * something unless its `sideEffect` is `read`. A name the set does not know
 * (a tool removed since the conversation began) counts as a read.
 *
 * @example
 * new ContextManager({ windowTokens: 128_000, isWriteTool: isWriteToolIn(registry) });
 */
export function isWriteToolIn(tools: Pick<ToolSet, 'get'>): (name: string) => boolean {
  return (name) => (tools.get(name)?.definition.sideEffect ?? 'read') !== 'read';
}

const specTokens = new WeakMap<ToolSpec, number>();

function toolTokens(tools: readonly ToolSpec[]): number {
  let total = 0;
  for (const spec of tools) {
    let tokens = specTokens.get(spec);
    if (tokens === undefined) {
      tokens = countToolSpecTokens(spec);
      specTokens.set(spec, tokens);
    }
    total += tokens;
  }
  return total;
}
