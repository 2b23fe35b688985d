import type { ChatMessage } from '../core/chat-message.js';
import { countMessageTokens, REPLY_OVERHEAD_TOKENS } from './count-message-tokens.js';

/** What an array held when it was last counted. */
interface CountedPrefix {
  readonly length: number;
  readonly first: ChatMessage | undefined;
  readonly last: ChatMessage | undefined;
  readonly total: number;
}

/**
 * A request counter that tokenizes each message object once and, for an
 * array it has counted before, walks only what was appended since: the
 * loop's conversation only grows, so a step costs the same at message 40
 * as at message 1,000. The result is exactly `countConversationTokens({
 * messages })`. Messages are taken as immutable once counted; an array
 * counted before is taken to have grown by appending (when it is shorter,
 * or its first or last counted message is no longer in place, it is
 * counted again from the start).
 *
 * @example
 * const count = createMessageCounter();
 * count(conversation); // tokenizes every message
 * conversation.push(next);
 * count(conversation); // tokenizes only `next`, adds it to the total
 */
export function createMessageCounter(): (messages: readonly ChatMessage[]) => number {
  const perMessage = new WeakMap<ChatMessage, number>();
  const prefixes = new WeakMap<readonly ChatMessage[], CountedPrefix>();
  return (messages) => {
    const counted = prefixes.get(messages);
    const resumes =
      counted !== undefined &&
      counted.length <= messages.length &&
      messages[0] === counted.first &&
      messages[counted.length - 1] === counted.last;
    let total = resumes ? counted.total : REPLY_OVERHEAD_TOKENS;
    for (let index = resumes ? counted.length : 0; index < messages.length; index += 1) {
      const message = messages[index] as ChatMessage;
      let tokens = perMessage.get(message);
      if (tokens === undefined) {
        tokens = countMessageTokens(message);
        perMessage.set(message, tokens);
      }
      total += tokens;
    }
    if (!resumes || counted.length !== messages.length) {
      prefixes.set(messages, { length: messages.length, first: messages[0], last: messages.at(-1), total });
    }
    return total;
  };
}
