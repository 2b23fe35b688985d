export type {
  AssistantMessage,
  ChatMessage,
  SystemMessage,
  ToolCall,
  ToolMessage,
  UserMessage,
} from '../core/chat-message.js';
export { createMemoryJournal, type RecordedToolResult, type RunJournal, type StepCommit } from '../core/run-journal.js';
export { type StopReason, stopReasons } from '../core/stop-reason.js';
export { type DescribeToolError, describeFullError } from './describe-tool-error.js';
export { type LoopTexts, loopTexts } from './loop-texts.js';
export type { PendingApproval } from './pending-approval.js';
export {
  type ResumeAfterApprovalOptions,
  type ResumeAfterApprovalResult,
  resumeAfterApproval,
} from './resume-after-approval.js';
export { type RunAgentOptions, type RunLimits, type RunResult, runAgent } from './run-agent.js';
export { type RunSessionOptions, runSession } from './run-session.js';
export { type UndoResult, undoToolCall } from './undo-tool-call.js';
