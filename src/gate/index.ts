export { type ApprovalBroker, type ApprovalRequest, type ApprovalState, denyAllApprovals } from './approval-broker.js';
export type { AuditDecision, AuditEntry, AuditLog } from './audit-log.js';
export type { IdempotencyClaim, IdempotencyStore } from './idempotency-store.js';
export type { Principal } from './principal.js';
export { allowAllGate, type GateDecision, type ToolGate } from './tool-gate.js';
