import type { ChatMessage } from '../core/chat-message.js';
import type { ToolSpec } from '../core/tool-spec.js';
import { countTokens, countToolSpecTokens } from './count-tokens.js';

/** Tokens the chat format adds around each message (role, separators), as OpenAI documents for its chat models. */
export const MESSAGE_OVERHEAD_TOKENS = 3;
/** Tokens the chat format adds once per request, priming the reply. */
export const REPLY_OVERHEAD_TOKENS = 3;
/** Tokens around each tool call beyond its name and arguments (id, type, framing). An estimate. */
export const TOOL_CALL_OVERHEAD_TOKENS = 6;

/**
 * Estimates the input tokens of one message with the real tokenizer: its
 * content, the names and arguments of its tool calls, the text of its
 * thinking blocks (sent back with it), and the framing.
 *
 * @example
 * countMessageTokens({ role: 'user', content: 'Where is my order SO20260901?' }); // 12
 */
export function countMessageTokens(message: ChatMessage): number {
  let tokens = MESSAGE_OVERHEAD_TOKENS + countTokens(message.content ?? '');
  if (message.role === 'assistant') {
    for (const call of message.tool_calls ?? []) {
      tokens += TOOL_CALL_OVERHEAD_TOKENS + countTokens(call.function.name) + countTokens(call.function.arguments);
    }
    // Thinking blocks an AI SDK provider returned go back with the message, so they count as input.
    for (const block of message.thinking ?? []) tokens += countTokens(block.text);
  }
  if (message.role === 'tool') tokens += countTokens(message.tool_call_id);
  return tokens;
}

/**
 * Estimates the input tokens of a whole request: every message, the reply
 * priming, and the definitions of the tools it carries. Uncalibrated: see
 * `TokenCalibration` for the correction from the usage a provider reports.
 *
 * @example
 * const estimate = countConversationTokens({ messages, tools: toolSet.specs });
 */
export function countConversationTokens({
  messages,
  tools = [],
}: {
  messages: readonly ChatMessage[];
  tools?: readonly ToolSpec[];
}): number {
  let tokens = REPLY_OVERHEAD_TOKENS;
  for (const message of messages) tokens += countMessageTokens(message);
  for (const spec of tools) tokens += countToolSpecTokens(spec);
  return tokens;
}
