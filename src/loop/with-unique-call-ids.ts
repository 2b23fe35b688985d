import { randomUUID } from 'node:crypto';
import type { AssistantMessage } from '../core/chat-message.js';

/**
 * The message with every tool call id unique in the conversation. Some
 * endpoints number calls `call_0`, `call_1`… afresh at each step (or send
 * none); answers and recorded results are keyed by id, so a repeated id
 * would hand a new call an old result. `seen` holds the conversation's ids
 * and gains the message's.
 *
 * @example
 * const message = withUniqueCallIds(response.message, progress.callIds);
 */
export function withUniqueCallIds(message: AssistantMessage, seen: Set<string>): AssistantMessage {
  const calls = message.tool_calls;
  if (calls === undefined || calls.length === 0) return message;
  let changed = false;
  const unique = calls.map((call) => {
    if (call.id !== '' && !seen.has(call.id)) {
      seen.add(call.id);
      return call;
    }
    changed = true;
    let id = `${call.id || 'call'}_${randomUUID().slice(0, 8)}`;
    while (seen.has(id)) id = `${call.id || 'call'}_${randomUUID().slice(0, 8)}`;
    seen.add(id);
    return { ...call, id };
  });
  return changed ? { ...message, tool_calls: unique } : message;
}
