import { HttpError } from '../../../errors/http-error.js';
import { isRecord } from '../../../util/is-record.js';

/** Chat ids the endpoint accepts: what `useChat` generates, and nothing that could be a path. */
const chatIdPattern = /^[A-Za-z0-9_-]{1,128}$/;
const maxMessageLength = 8000;
const maxReasonLength = 500;

/** A decision on an approval, as `addToolApprovalResponse` puts it in a tool part. */
export interface ChatApprovalResponse {
  readonly approvalId: string;
  readonly toolCallId: string;
  readonly approved: boolean;
  readonly reason: string | undefined;
}

/** What a `POST /v1/chat` asks for. */
export type ChatRequest =
  | { readonly kind: 'message'; readonly chatId: string; readonly text: string }
  | { readonly kind: 'approvals'; readonly chatId: string; readonly responses: readonly ChatApprovalResponse[] };

/**
 * Reads the body `DefaultChatTransport` sends (`{ id, messages, trigger,
 * messageId }`, or `{ id, message }` from a `prepareSendMessagesRequest`
 * that sends only the newest message): a user message's text parts become
 * the run's message; an assistant message's tool parts in state
 * `approval-responded` become decisions. arbiter keeps the conversation
 * itself, so earlier messages in the body are not read; `regenerate-message`
 * is refused (a session's history only grows).
 *
 * @example
 * readChatRequest({ id: 'chat-1', messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }], trigger: 'submit-message' });
 * // { kind: 'message', chatId: 'chat-1', text: 'Hi' }
 */
export function readChatRequest(body: Readonly<Record<string, unknown>>): ChatRequest {
  const chatId = readChatId(body.id);
  if (body.trigger !== undefined && body.trigger !== 'submit-message') {
    throw invalid(
      'trigger',
      body.trigger === 'regenerate-message'
        ? 'arbiter does not regenerate answers: a session keeps every step it took; send a new message instead'
        : '"trigger" must be "submit-message"',
    );
  }
  const message = body.message ?? (Array.isArray(body.messages) ? body.messages.at(-1) : undefined);
  if (!isRecord(message) || !Array.isArray(message.parts)) {
    throw invalid('messages', '"messages" must end with a UI message (an object with "role" and "parts")');
  }
  const parts = message.parts.filter(isRecord);
  if (message.role === 'user') {
    const text = parts
      .filter((part) => part.type === 'text' && typeof part.text === 'string')
      .map((part) => part.text as string)
      .join('\n');
    if (text.trim() === '') throw invalid('messages', 'the user message has no text part');
    if (text.length > maxMessageLength) {
      throw invalid('messages', `the user message must be at most ${maxMessageLength} characters`);
    }
    return { kind: 'message', chatId, text };
  }
  if (message.role === 'assistant') {
    const responses = parts.flatMap((part): ChatApprovalResponse[] => {
      const isTool = typeof part.type === 'string' && (part.type.startsWith('tool-') || part.type === 'dynamic-tool');
      if (!isTool || part.state !== 'approval-responded') return [];
      const approval = part.approval;
      if (
        !isRecord(approval) ||
        typeof approval.id !== 'string' ||
        typeof approval.approved !== 'boolean' ||
        typeof part.toolCallId !== 'string' ||
        (approval.reason !== undefined &&
          (typeof approval.reason !== 'string' || approval.reason.length > maxReasonLength))
      ) {
        throw invalid(
          'messages',
          `an approval response needs "toolCallId", "approval.id", "approval.approved" (boolean) and at most a ${maxReasonLength}-character "approval.reason"`,
        );
      }
      return [
        {
          approvalId: approval.id,
          toolCallId: part.toolCallId,
          approved: approval.approved,
          reason: typeof approval.reason === 'string' ? approval.reason : undefined,
        },
      ];
    });
    if (responses.length === 0) {
      throw invalid(
        'messages',
        'the assistant message carries no approval response (a tool part in state "approval-responded")',
      );
    }
    return { kind: 'approvals', chatId, responses };
  }
  throw invalid('messages', 'the last message must be a user message or an assistant message with approval responses');
}

/**
 * A chat id from a request: 1–128 letters, digits, `_` or `-`.
 *
 * @example
 * readChatId('Xk2v9QeZ'); // 'Xk2v9QeZ'
 */
export function readChatId(value: unknown): string {
  if (typeof value !== 'string' || !chatIdPattern.test(value)) {
    throw invalid('id', '"id" (the chat id) must be 1-128 letters, digits, "_" or "-"');
  }
  return value;
}

function invalid(field: string, message: string): HttpError {
  return new HttpError({ status: 400, reason: 'invalid_body', message, details: { field } });
}
