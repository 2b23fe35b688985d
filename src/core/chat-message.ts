/** One tool call as the model emitted it: arguments are raw text, untrusted. */
export interface ToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
  /**
   * What the provider attached to this call (Gemini's `thoughtSignature`),
   * by provider name; opaque JSON, handed back with the call on the next
   * request by the AI SDK adapter, ignored by other models.
   */
  readonly provider_metadata?: ProviderMetadata;
}

/**
 * A provider's own fields on one part of an answer, by provider name
 * (`{ anthropic: { signature: '…' } }`): opaque JSON that the provider needs
 * back, unchanged, on the next request. Kept in the stored session.
 */
export type ProviderMetadata = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/**
 * A block of a model's thinking that an AI SDK provider returned (an
 * Anthropic `thinking` or `redacted_thinking` block, a Gemini thought): kept
 * with the answer it came with and sent back with it, signature and all, so
 * the model continues its reasoning across tool calls. Never shown as the
 * answer's text.
 */
export interface ThinkingBlock {
  /** The thinking as text; empty for a redacted block. */
  readonly text: string;
  /** The provider's fields (the block's signature, its redacted data). */
  readonly provider_metadata?: ProviderMetadata;
}

export interface SystemMessage {
  readonly role: 'system';
  readonly content: string;
  /**
   * Set when the content carries text of third-party origin (recalled facts
   * a tool result or the model's reading said, see `recalledFactsMessage`):
   * names that source. The run counts the conversation as holding untrusted
   * content, as for a marked tool message; never sent to the model.
   */
  readonly untrusted?: string;
}

export interface UserMessage {
  readonly role: 'user';
  readonly content: string;
}

/**
 * A reasoning item of OpenAI's Responses API: opaque to arbiter, kept with
 * the answer it came with so the next request can hand it back (reasoning
 * models continue their chain of thought across tool calls that way).
 */
export interface ReasoningItem {
  /** The provider's item id, `rs_…`. */
  readonly id: string;
  /** The encrypted reasoning, when requested (`include: ['reasoning.encrypted_content']`, stateless use). */
  readonly encrypted_content?: string;
}

export interface AssistantMessage {
  readonly role: 'assistant';
  readonly content: string | null;
  readonly tool_calls?: readonly ToolCall[];
  /** Reasoning items of a Responses API answer, sent back with the next request; other models ignore them. */
  readonly reasoning?: readonly ReasoningItem[];
  /** The Responses API's id of the response this message is, for `previous_response_id`. */
  readonly response_id?: string;
  /** Thinking blocks of an AI SDK provider's answer, in order, sent back before the text and tool calls; other models ignore them. */
  readonly thinking?: readonly ThinkingBlock[];
  /** What the provider attached to the answer's text (Gemini's `thoughtSignature`); sent back with it. */
  readonly provider_metadata?: ProviderMetadata;
}

export interface ToolMessage {
  readonly role: 'tool';
  readonly tool_call_id: string;
  readonly content: string;
  /**
   * Set when the content came from a source the tool declared untrusted
   * (`untrustedOutput`): names that source. Stored with the session, so a
   * conversation that took in third-party content stays marked across runs
   * and restarts; never sent to the model.
   */
  readonly untrusted?: string;
}

/** The OpenAI chat-completions message protocol, which arbiter speaks internally. */
export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;
