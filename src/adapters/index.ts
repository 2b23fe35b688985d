/**
 * @module
 * The gate as tools for other loops: what every adapter shares (the run of
 * an outside loop, its approvals, the bridge into arbiter's tool runner).
 * The adapters themselves sit in `ai-sdk/` and `openai-agents/`.
 */
export { type AdapterCallAnswer, type AdapterCallClaim, AdapterCalls } from './adapter-calls.js';
export { type AdapterTexts, adapterTexts } from './adapter-texts.js';
export { ConversationMarks, type ConversationSessions } from './conversation-marks.js';
export {
  type ExternalLoop,
  type ExternalRunRecords,
  externalRunId,
  isExternalRunId,
  recordExternalRun,
} from './external-run.js';
export {
  type ArbiterApprovalRequest,
  type ArbiterLoopOptions,
  type ArbiterToolResult,
  createGateBridge,
  type GateBridge,
  type ProposedCall,
} from './gate-bridge.js';
export { type ApprovalKey, type ExternalApprovals, LoopApprovals } from './loop-approvals.js';
