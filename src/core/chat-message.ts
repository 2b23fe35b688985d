/** One tool call as the model emitted it: arguments are raw text, untrusted. */
export interface ToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
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
