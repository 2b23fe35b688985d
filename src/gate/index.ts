export {
  type CallHistory,
  type CallHistoryFilter,
  type CallHistoryQuery,
  type CallHistorySource,
  type ExecutedDecision,
  emptyCallHistory,
  type HistoryWindow,
  isCallHistorySource,
  type PastCall,
} from '../core/call-history.js';
export type { Principal } from '../core/principal.js';
export { ApprovalResolutionError, type ApprovalResolutionFailure } from '../errors/approval-resolution-error.js';
export { AuditRetentionError } from '../errors/audit-retention-error.js';
export { GateRuleError } from '../errors/gate-rule-error.js';
export { UndoError, type UndoFailure } from '../errors/undo-error.js';
export {
  type ApprovalBroker,
  type ApprovalDeniedCode,
  type ApprovalRequest,
  type ApprovalState,
  type DecideOptions,
  denyAllApprovals,
} from './approval-broker.js';
export {
  type AuditAnchor,
  type AuditAnchorCheck,
  type AuditAnchorOrigin,
  auditAnchor,
  auditAnchorFormat,
  checkAuditAnchor,
} from './audit-anchor.js';
export {
  type AuditChainEnd,
  type AuditChainFinding,
  type AuditChainOrigin,
  type AuditChainReport,
  type AuditChainRow,
  auditChainKey,
  auditRowHash,
  sealAuditChains,
} from './audit-chain.js';
export {
  type AuditCheckpoint,
  type AuditCheckpointChain,
  auditCheckpoint,
  isSignedCheckpoint,
  readAuditCheckpoint,
} from './audit-checkpoint.js';
export { checkAuditKey, minimumAuditKeyLength } from './audit-key.js';
export type { AuditDecision, AuditEntry, AuditLog, OriginalCall } from './audit-log.js';
export {
  type AuditChainOriginRecord,
  auditGenesisHead,
  auditOriginFormat,
  auditOriginSeal,
} from './audit-origin-seal.js';
export {
  type AuditChainHead,
  type AuditChainLink,
  type AuditChainRecord,
  auditRecordFormat,
  auditRecordHash,
  linkAuditRecords,
} from './audit-record-hash.js';
export {
  type AuditArchive,
  type AuditPurgeResult,
  auditPurgeCutoff,
  auditPurgeEntry,
  auditPurgeTool,
  auditRetentionFloorDays,
  checkAuditRetention,
  defaultAuditRetentionDays,
} from './audit-retention.js';
export { bindPrincipalParameters } from './bind-principal-parameters.js';
export { createInlineApprover, type InlineAnswer } from './create-inline-approver.js';
export { type GateTexts, gateTexts } from './gate-texts.js';
export { egressAfterUntrustedRule, guardEgress } from './guard-egress.js';
export type {
  IdempotencyClaim,
  IdempotencyClaimant,
  IdempotencyClaimRequest,
  IdempotencyStore,
  ResolveUnknownRequest,
} from './idempotency-store.js';
export { MemoryAuditLog } from './memory-audit-log.js';
export { createTierGate, type GateCondition, type GateRule } from './tier-gate.js';
export { toolDefinitionChangedOutcome, toolDefinitionChangeEntry } from './tool-definition-change.js';
export { allowAllGate, type GateDecision, type ToolGate } from './tool-gate.js';
export { type AnchoredChain, type CheckedAuditAnchor, verifyAuditChain } from './verify-audit-chain.js';
