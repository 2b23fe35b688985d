import type { Awaitable } from '../core/awaitable.js';
import type { CallHistorySource } from '../core/call-history.js';
import type { MemoryStore } from '../core/memory-store.js';
import type { EventLog } from '../events/event-log.js';
import type { ApprovalBroker } from '../gate/approval-broker.js';
import type { ApprovalRecord, ApprovalStatus } from '../gate/approval-record.js';
import type { AuditChainReport } from '../gate/audit-chain.js';
import type { AuditLog } from '../gate/audit-log.js';
import type { AuditArchive, AuditPurgeResult } from '../gate/audit-retention.js';
import type { IdempotencyStore } from '../gate/idempotency-store.js';
import type { CheckedAuditAnchor } from '../gate/verify-audit-chain.js';
import type { AuditRecord } from './audit-rows.js';
import type { RuntimeStore } from './runtime-store.js';
import type { SessionStore } from './session-store.js';

/** Approvals as a store: the broker a run asks, plus what a person or an operator does with them. */
export interface ApprovalStore extends ApprovalBroker {
  /** Records a person's decision on a pending approval (see `approvalResolution` in `gate/approval-rules.ts` for every rule). */
  resolveApproval(request: {
    approvalId: string;
    decision: 'approve' | 'reject';
    approver: string;
    reason?: string;
  }): Awaitable<ApprovalRecord>;
  getApproval(approvalId: string): Awaitable<ApprovalRecord | undefined>;
  listApprovals(filter?: {
    status?: ApprovalStatus;
    runId?: string;
    sessionId?: string;
  }): Awaitable<readonly ApprovalRecord[]>;
  /** Approvals of a run still waiting for a person. */
  countPending(request: { runId: string }): Awaitable<number>;
}

/** The audit as a store: the append-only log, the call history rules read, and what an auditor does with it. */
export interface AuditStore extends AuditLog, CallHistorySource {
  /** Recomputes the hash chains (see `verifyAuditChain`); with `anchor`, also against an anchor's store, origin and heads. */
  verifyChain(options?: {
    key?: string | undefined;
    anchor?: CheckedAuditAnchor | undefined;
  }): Awaitable<AuditChainReport>;
  /** Deletes rows older than `olderThanDays` (never younger than the retention), leaving a signed checkpoint. */
  purge(request: {
    olderThanDays: number;
    by: string;
    archive?: AuditArchive<void | Promise<void>>;
  }): Awaitable<AuditPurgeResult>;
  /** Entries in the order they were appended, optionally of one session, run or tool call. */
  listAudit(filter?: {
    sessionId?: string;
    runId?: string;
    toolCallId?: string;
    limit?: number;
  }): Awaitable<readonly AuditRecord[]>;
}

/** Long-term memory as a store: what a run recalls and saves, and what an operator looks up. */
export interface MemoryAdministration extends MemoryStore {
  /** The tenants a user has facts in. */
  tenantsOfUser(request: { userId: string }): Awaitable<readonly string[]>;
}

/**
 * Everything arbiter keeps, one store per concept, as both backends give
 * it: SQLite (`openSqliteBackend`, embedded, synchronous underneath) and
 * PostgreSQL (`openPostgresBackend`, shared by any number of nodes). Code
 * that only needs the concepts (the operator's commands, an application)
 * takes a `Backend` and awaits every answer, whichever dialect is under it.
 *
 * @example
 * async function pendingApprovals(backend: Backend) {
 *   return backend.approvals.listApprovals({ status: 'pending' });
 * }
 */
export interface Backend {
  /** Sessions and their run journals. */
  readonly sessions: SessionStore;
  /** Approvals: pending, decided, granted. */
  readonly approvals: ApprovalStore;
  /** Idempotency claims scoped by tenant and principal. */
  readonly idempotency: IdempotencyStore;
  /** The append-only audit log. */
  readonly audit: AuditStore;
  /** The runs' external events, for replay. */
  readonly events: EventLog;
  /** Long-term memory: facts per tenant and user. */
  readonly memory: MemoryAdministration;
  /** Finished runs. */
  readonly runtime: RuntimeStore;
  /** Closes what the backend opened; every member stops working. */
  close(): Awaitable<void>;
}

/** The settings of the concepts every backend takes, whichever its dialect. */
export interface BackendSettings {
  /** The clock of sessions, approvals and idempotency claims. Default `Date.now`. */
  now?: () => number;
  /** How long a pending approval waits before it is denied as timed out. Default one day. */
  approvalTtlMs?: number;
  /** How long an approval, once given, may be used before it expires unused. Default one day. */
  approvalGrantTtlMs?: number;
  /**
   * How long an idempotency claim whose process stopped renewing it (killed, frozen, cut off) holds others back:
   * the process renews its claims every third of it while their calls run. Default 15 s.
   */
  claimLeaseMs?: number;
  /** The audit log's minimum retention: `audit.purge` never deletes younger rows. Default 400 days, at least 30. */
  auditRetentionDays?: number;
}

/**
 * Each concept's constructor options from a backend's settings, the unset
 * ones left out: the same for both dialects' classes.
 *
 * @example
 * const options = conceptOptions(settings);
 * new SqliteApprovalBroker({ database, ...options.approvals });
 */
export function conceptOptions({
  now,
  approvalTtlMs,
  approvalGrantTtlMs,
  auditRetentionDays,
  claimLeaseMs,
}: BackendSettings) {
  const clock = now === undefined ? {} : { now };
  return {
    clock,
    approvals: {
      ...clock,
      ...(approvalTtlMs === undefined ? {} : { ttlMs: approvalTtlMs }),
      ...(approvalGrantTtlMs === undefined ? {} : { grantTtlMs: approvalGrantTtlMs }),
    },
    idempotency: { ...clock, ...(claimLeaseMs === undefined ? {} : { leaseMs: claimLeaseMs }) },
    audit: { ...clock, ...(auditRetentionDays === undefined ? {} : { minimumRetentionDays: auditRetentionDays }) },
  };
}
