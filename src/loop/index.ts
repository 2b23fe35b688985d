export { CallBrakes } from './call-brakes.js';
export type {
  AssistantMessage,
  ChatMessage,
  SystemMessage,
  ToolCall,
  ToolMessage,
  UserMessage,
} from './chat-message.js';
export { type LoopTexts, loopTexts } from './loop-texts.js';
export { type RunAgentOptions, type RunLimits, type RunResult, runAgent } from './run-agent.js';
export { type BatchContext, type BatchResult, runBatch } from './run-batch.js';
export { createMemoryJournal, type RecordedToolResult, type RunJournal, type StepCommit } from './run-journal.js';
export { type RunSessionOptions, runSession } from './run-session.js';
export { type ErrorStyle, runToolCall, type ToolCallReport } from './run-tool-call.js';
export { type StopReason, stopReasons } from './stop-reason.js';
