export {
  type ChunkIdentity,
  type FakeAnswer,
  type FakeToolCall,
  type FakeUsage,
  toChatCompletion,
  toStreamChunks,
} from '../chat-completion-chunks.js';
export {
  type FakeChatServer,
  type FakeModels,
  type FakeReply,
  type FakeResponder,
  type FakeStreaming,
  type FakeTiming,
  type RecordedRequest,
  startFakeChatServer,
} from './fake-chat-server.js';
export {
  type FakeResponsesAnswer,
  type ResponseIdentity,
  toResponseEvents,
  toResponseObject,
} from './response-events.js';
