/**
 * The ground floor: the vocabulary every area of arbiter shares (messages,
 * tool calls and outcomes, stop reasons, the principal, the run journal) and
 * the conversation invariants. It imports nothing else of arbiter's.
 *
 * @module
 */
export type { Awaitable } from './awaitable.js';
export type {
  CallHistory,
  CallHistoryFilter,
  CallHistoryQuery,
  CallHistorySource,
  ExecutedDecision,
  HistoryRelease,
  HistoryWindow,
  PastCall,
} from './call-history.js';
export { emptyCallHistory, isCallHistorySource } from './call-history.js';
export type {
  AssistantMessage,
  ChatMessage,
  ProviderMetadata,
  ReasoningItem,
  SystemMessage,
  ThinkingBlock,
  ToolCall,
  ToolMessage,
  UserMessage,
} from './chat-message.js';
export type { JsonSchema } from './json-schema.js';
export type { Locale } from './locale.js';
export type {
  FactOwner,
  FactSource,
  FactSourceKind,
  MemoryFact,
  MemoryStore,
  RecalledFact,
  RecallRequest,
  SaveFactRequest,
} from './memory-store.js';
export {
  groupMessageUnits,
  isCleanCut,
  type MessageUnit,
  toolPairingProblems,
  unansweredToolCallIds,
} from './message-units.js';
export type { Principal } from './principal.js';
export { createMemoryJournal, type RecordedToolResult, type RunJournal, type StepCommit } from './run-journal.js';
export type { RunUsage, TokenUsage } from './run-usage.js';
export { type StopReason, stopReasons } from './stop-reason.js';
export type { ToolErrorPayload, ToolOutcome, ValidationIssueSummary } from './tool-outcome.js';
export type { ToolSpec } from './tool-spec.js';
