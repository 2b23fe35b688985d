export type { EventLog, ReadEventsOptions } from '../events/event-log.js';
export { isStoreBusy, retryWhileBusy } from '../util/retry-while-busy.js';
export type { ApprovalStore, AuditStore, Backend } from './backend.js';
export type { RunRecord, RuntimeStore } from './runtime-store.js';
export type {
  ModelCallDecision,
  ModelCallFailure,
  OrphanedRun,
  RunFailure,
  ServerRun,
  ServerRunStatus,
} from './server-run.js';
export type { ActiveRun, BegunRun, Session, SessionStatus, SessionStore, SessionSummary } from './session-store.js';
export { type Migration, migrations } from './sqlite/migrations/index.js';
export { openSqliteBackend, type SqliteBackend } from './sqlite/open-sqlite-backend.js';
export { type ApprovalRecord, type ApprovalStatus, SqliteApprovalBroker } from './sqlite/sqlite-approval-broker.js';
export { type AuditRecord, SqliteAuditLog } from './sqlite/sqlite-audit-log.js';
export { SqliteEventLog } from './sqlite/sqlite-event-log.js';
export { SqliteIdempotencyStore } from './sqlite/sqlite-idempotency-store.js';
export { SqliteMemoryStore } from './sqlite/sqlite-memory-store.js';
export { ServerRuns } from './sqlite/sqlite-server-runs.js';
export { SqliteSessionStore } from './sqlite/sqlite-session-store.js';
export { migrate, openSqliteStore, SqliteStore } from './sqlite/sqlite-store.js';
