export { groupMessageUnits, isCleanCut, type MessageUnit, toolPairingProblems } from '../core/message-units.js';
export {
  type CachedSummary,
  COMPRESSION_TARGET,
  COMPRESSION_THRESHOLD,
  type CompressionResult,
  type CompressionStage,
  type CompressOptions,
  compressContext,
  type PinnedState,
  type Summarize,
} from './compress-context.js';
export {
  type CompressionRecord,
  ContextManager,
  type ContextManagerOptions,
  isWriteToolIn,
  type PreparedRequest,
} from './context-manager.js';
export {
  countConversationTokens,
  countMessageTokens,
  MESSAGE_OVERHEAD_TOKENS,
  REPLY_OVERHEAD_TOKENS,
  TOOL_CALL_OVERHEAD_TOKENS,
} from './count-message-tokens.js';
export { countTokens, countToolSpecTokens, TOOL_SPEC_OVERHEAD_TOKENS } from './count-tokens.js';
export { describeFact, recalledFactsMessage, withRecalledFacts } from './recalled-facts.js';
export { type RedactConversationOptions, redactConversation, sensitiveFieldsIn } from './redact-conversation.js';
export { SUMMARY_INPUT_CHARS, summarizeWithModel } from './summarize-with-model.js';
export { TokenCalibration } from './token-calibration.js';
export {
  TOOL_RESULT_CHARS,
  TOOL_RESULT_ITEM_CHARS,
  TRUNCATION_KEY,
  type TruncateOptions,
  truncateToolResult,
} from './truncate-tool-result.js';
