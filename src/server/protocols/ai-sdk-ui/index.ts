/**
 * @module
 * The AI SDK's UI message stream protocol: `POST /v1/chat` and
 * `GET /v1/chat/:id/stream` for `useChat` with `DefaultChatTransport`.
 */
export { chatRoutes } from './chat-routes.js';
export { type ChatApprovalResponse, type ChatRequest, readChatId, readChatRequest } from './read-chat-request.js';
export {
  displayToolResult,
  sessionToolFacts,
  type ToolCallFacts,
  type ToolFactsSource,
  toolFactsOf,
} from './run-tool-facts.js';
export { type StreamUiMessagesOptions, streamUiMessages } from './stream-ui-messages.js';
export {
  type ArbiterMessageMetadata,
  encodeUiMessageChunk,
  type UiFinishReason,
  type UiMessageChunk,
  uiMessageStreamDone,
  uiMessageStreamHeaders,
} from './ui-message-chunk.js';
export {
  type ChatAudience,
  UiMessageStreamEncoder,
  type UiMessageStreamEncoderOptions,
} from './ui-message-stream-encoder.js';
