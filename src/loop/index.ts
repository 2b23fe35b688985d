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
export { type ErrorStyle, runToolCall, type ToolCallReport } from './run-tool-call.js';
export { type StopReason, stopReasons } from './stop-reason.js';
