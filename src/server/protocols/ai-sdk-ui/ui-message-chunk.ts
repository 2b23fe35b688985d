/**
 * @module
 * The chunks of the AI SDK's UI message stream (protocol `v1`, header
 * `x-vercel-ai-ui-message-stream: v1`) that arbiter sends: the subset of the
 * `ai` package's `UIMessageChunk` it uses, written out here so the server
 * needs no `ai` dependency. The tests check every chunk against the
 * package's own `uiMessageChunkSchema`.
 */

/** Why a message finished, as the AI SDK names it. */
export type UiFinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other';

/** What arbiter puts in a message's metadata: which run, and why it stopped. */
export interface ArbiterMessageMetadata {
  readonly runId: string;
  /** arbiter's stop reason (`completed`, `awaiting_approval`, `aborted`, …). */
  readonly stopReason?: string;
  readonly steps?: number;
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number; readonly totalTokens: number };
  /** The `run:error` code, when the run failed. */
  readonly errorCode?: string;
}

/** One chunk of the UI message stream. */
export type UiMessageChunk =
  | { readonly type: 'start'; readonly messageId?: string; readonly messageMetadata?: ArbiterMessageMetadata }
  | { readonly type: 'start-step' }
  | { readonly type: 'finish-step' }
  | { readonly type: 'text-start'; readonly id: string }
  | { readonly type: 'text-delta'; readonly id: string; readonly delta: string }
  | { readonly type: 'text-end'; readonly id: string }
  | { readonly type: 'tool-input-start'; readonly toolCallId: string; readonly toolName: string }
  | {
      readonly type: 'tool-input-available';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly input: unknown;
    }
  | { readonly type: 'tool-approval-request'; readonly approvalId: string; readonly toolCallId: string }
  | { readonly type: 'tool-output-available'; readonly toolCallId: string; readonly output: unknown }
  | { readonly type: 'tool-output-error'; readonly toolCallId: string; readonly errorText: string }
  | { readonly type: 'tool-output-denied'; readonly toolCallId: string }
  | {
      readonly type: `data-${string}`;
      readonly id?: string;
      readonly data: unknown;
      readonly transient?: boolean;
    }
  | { readonly type: 'message-metadata'; readonly messageMetadata: ArbiterMessageMetadata }
  | { readonly type: 'error'; readonly errorText: string }
  | { readonly type: 'abort'; readonly reason?: string }
  | {
      readonly type: 'finish';
      readonly finishReason?: UiFinishReason;
      readonly messageMetadata?: ArbiterMessageMetadata;
    };

/** The response headers of a UI message stream. */
export const uiMessageStreamHeaders = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
} as const;

/**
 * One chunk as an SSE event (`data: {…}` and a blank line), as the AI SDK's
 * `JsonToSseTransformStream` writes it.
 *
 * @example
 * encodeUiMessageChunk({ type: 'text-delta', id: 'text-1', delta: 'Hi' }); // 'data: {"type":"text-delta",…}\n\n'
 */
export function encodeUiMessageChunk(chunk: UiMessageChunk): string {
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** The stream's last event. */
export const uiMessageStreamDone = 'data: [DONE]\n\n';
