import type { AssistantMessage, ChatMessage } from '../core/chat-message.js';
import type { TokenUsage } from '../core/run-usage.js';
import type { ToolSpec } from '../core/tool-spec.js';
import type { ModelDecision } from './model-decision.js';

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';

export interface ModelRequest {
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly ToolSpec[];
  readonly signal?: AbortSignal;
  /** Called with each text fragment as it streams in. */
  readonly onTextDelta?: (text: string) => void;
  /** Upper bound on generated tokens (`max_tokens`); the provider's default when absent. */
  readonly maxOutputTokens?: number;
  /** Told of every retry, wait, fallback or give-up a resilient model decides during this call. */
  readonly onDecision?: (decision: ModelDecision) => void;
}

export interface ModelResponse {
  readonly message: AssistantMessage;
  readonly usage: TokenUsage;
  readonly finishReason: FinishReason;
  /** The model that produced this response, when it may differ from `Model.name` (a fallback answered). */
  readonly model?: string;
  /** Set when the model declined to answer: its refusal, also the message's content; `finishReason` is `content_filter`. */
  readonly refusal?: string;
}

/**
 * Anything that turns a conversation into the next assistant message: a real
 * endpoint, a fallback chain, or the offline scripted model.
 *
 * @example
 * const response = await model.generate({ messages, tools: registry.specs });
 */
export interface Model {
  readonly name: string;
  /** True when tools are sent in strict mode, so optional arguments arrive as `null` (see `stripStrictNulls`). */
  readonly strictTools?: boolean;
  generate(request: ModelRequest): Promise<ModelResponse>;
}
