import { createHash } from 'node:crypto';
import type { ChatMessage } from '../core/chat-message.js';
import type { ToolSpec } from '../core/tool-spec.js';

/**
 * A short fingerprint of what providers cache between requests: the tool
 * definitions and the system messages that open the conversation, hashed
 * byte for byte as `JSON.stringify` writes them (not canonicalised: a
 * reordered key changes the bytes sent, so it must change the fingerprint).
 *
 * arbiter keeps this prefix stable by design: tools go out in registration
 * order (a mounted group keeps that order; they are not sorted by name, as
 * the order is the author's and sorting would gain nothing), each schema
 * with the author's key order (never sorted: models fill arguments in
 * schema order), each spec rebuilt with one fixed key order and memoised by
 * `OpenAiModel`. The system prompt is the caller's: keep timestamps and
 * per-user data out of it. Emit this fingerprint with each model call; a
 * change within a run means the prompt cache was missed.
 *
 * @example
 * const before = prefixFingerprint({ messages, tools: tools.specs });
 * // ... next step
 * if (prefixFingerprint({ messages, tools: tools.specs }) !== before) trace('prompt prefix changed');
 */
export function prefixFingerprint({
  messages,
  tools,
}: {
  messages: readonly ChatMessage[];
  tools: readonly ToolSpec[];
}): string {
  const system: string[] = [];
  for (const message of messages) {
    if (message.role !== 'system') break;
    system.push(message.content);
  }
  return createHash('sha256').update(JSON.stringify({ tools, system })).digest('hex').slice(0, 16);
}
