import type { ChatMessage } from '../../core/chat-message.js';
import { isCleanCut } from '../../core/message-units.js';
import { InvalidForkPointError } from '../../errors/invalid-fork-point-error.js';

/**
 * Why a session cannot be forked at message `cut` (out of range, or between
 * an assistant's tool calls and their tool messages), naming the nearest
 * points where it can.
 *
 * @example
 * throw forkPointError({ sessionId, messages, cut: 3 });
 */
export function forkPointError({
  sessionId,
  messages,
  cut,
}: {
  sessionId: string;
  messages: readonly ChatMessage[];
  cut: number;
}): InvalidForkPointError {
  const valid = (index: number) => isCleanCut(messages, index);
  let nearestBefore: number | undefined;
  for (let index = Math.min(cut, messages.length) - 1; index >= 0; index -= 1) {
    if (valid(index)) {
      nearestBefore = index;
      break;
    }
  }
  let nearestAfter: number | undefined;
  for (let index = Math.max(cut, -1) + 1; index <= messages.length; index += 1) {
    if (valid(index)) {
      nearestAfter = index;
      break;
    }
  }
  return new InvalidForkPointError({
    sessionId,
    atMessage: cut,
    messageCount: messages.length,
    nearestBefore,
    nearestAfter,
  });
}
