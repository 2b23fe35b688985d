import { type Message, type Part, Role } from '@a2a-js/sdk';

/**
 * A text part as the SDK types it.
 *
 * @example
 * textPart('Refund applied');
 */
export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined };
}

/**
 * A message of the agent (or the user) on a task, with one text part.
 *
 * @example
 * agentMessage({ taskId, contextId, messageId: 'm-1', text: 'Done' });
 */
export function agentMessage({
  taskId,
  contextId,
  messageId,
  text,
  role = Role.ROLE_AGENT,
  metadata,
}: {
  taskId: string;
  contextId: string;
  messageId: string;
  text: string;
  role?: Role;
  metadata?: Record<string, unknown>;
}): Message {
  return {
    messageId,
    contextId,
    taskId,
    role,
    parts: [textPart(text)],
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/**
 * The text of a message's text parts, joined by blank lines; empty when it has none.
 *
 * @example
 * messageText(requestContext.userMessage); // 'Where is my order?'
 */
export function messageText(message: Message | undefined): string {
  return (message?.parts ?? [])
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .filter((text) => text !== '')
    .join('\n\n');
}
