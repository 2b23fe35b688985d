import type { AssistantMessage, ChatMessage } from '../loop/chat-message.js';
import type { ToolSpec } from '../tools/tool-types.js';

export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Input tokens served from the provider's prompt cache, when reported. */
  readonly cachedInputTokens?: number;
}

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';

export interface ModelRequest {
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly ToolSpec[];
  readonly signal?: AbortSignal;
  /** Called with each text fragment as it streams in. */
  readonly onTextDelta?: (text: string) => void;
}

export interface ModelResponse {
  readonly message: AssistantMessage;
  readonly usage: TokenUsage;
  readonly finishReason: FinishReason;
}

/**
 * Anything that turns a conversation into the next assistant message: a real
 * endpoint, a fallback chain, or the offline scripted model.
 *
 * @example
 * const response = await model.generate({ messages, tools: registry.specs() });
 */
export interface Model {
  readonly name: string;
  generate(request: ModelRequest): Promise<ModelResponse>;
}
