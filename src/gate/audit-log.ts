import type { ExecutedDecision } from '../core/call-history.js';
/** How the gate let a call through, or did not. */
export type AuditDecision = ExecutedDecision | 'rejected' | 'denied';

/** One row of the append-only audit log. */
export interface AuditEntry {
  readonly at: number;
  readonly sessionId: string | undefined;
  readonly runId: string;
  readonly step: number;
  readonly toolCallId: string;
  readonly tool: string;
  readonly sideEffect: 'read' | 'reversible' | 'irreversible';
  /** sha256 of the canonical JSON of the arguments (before redaction). */
  readonly argumentsHash: string;
  /** The arguments with every field marked sensitive redacted. */
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly decision: AuditDecision;
  readonly rule: string | undefined;
  readonly approver: string | undefined;
  /** Whose call it was: the principal's tenant; absent for a call without a principal. */
  readonly tenantId?: string | undefined;
  /** The principal's user id; absent for a call without a principal. */
  readonly userId?: string | undefined;
  /**
   * For a replay (`replayed:…`) and a refused claim (`claimed_by_another_user`):
   * the call that executed first under the idempotency key.
   */
  readonly replayOf?: OriginalCall | undefined;
  /**
   * The fingerprint of the tool's definition the call was decided and run
   * under (a third party's tool, pinned when mounted: see
   * `ToolDefinition.fingerprint`); part of the row's hash.
   */
  readonly toolFingerprint?: string | undefined;
  /**
   * `ok`; the tool's error code; `not_run` (refused by the gate or a person);
   * `replayed:ok` / `replayed:CODE` (an idempotency key returned the first
   * outcome); `outcome_unknown`; `aborted`; `infrastructure_failure`;
   * `undone` / `undo_failed` (see `undoToolCall`); `awaiting_approval`
   * (decision `denied`: a person was asked about an egress call and has not
   * decided; a later row of the same tool call says how it ended).
   */
  readonly outcome: string;
  readonly durationMs: number;
}

/** The first execution of an idempotency key: its run and tool call. */
export interface OriginalCall {
  readonly runId: string;
  readonly toolCallId: string;
}

/**
 * Where audit entries go. The SQLite implementation refuses UPDATE and
 * DELETE with a trigger. An audit log that can also answer `findCalls`
 * (a `CallHistorySource`, like `SqliteAuditLog`) is where rules read
 * `context.history` from.
 *
 * @example
 * await audit.append(entry);
 */
export interface AuditLog {
  /**
   * Records an entry. A log may let the entry of a call that changed
   * nothing (a `read` let through) wait and commit with later writes; it
   * commits every other entry before the returned promise settles.
   */
  append(entry: AuditEntry): Promise<void> | void;
  /** Commits every entry still waiting; the loop calls it before a run ends. */
  flush?(): Promise<void> | void;
}

/**
 * The decisions under which a call executed, the ones `findCalls` reads by
 * default: what rules counting earlier calls (`context.history`) count.
 *
 * @example
 * executedDecisions.includes(entry.decision as ExecutedDecision);
 */
export const executedDecisions: readonly ExecutedDecision[] = ['allowed', 'auto_approved', 'approved'];

/**
 * Whether an entry's row may wait to commit with later writes (see
 * `AuditLog.append`): the entry of a call that changed nothing, a `read`
 * that executed. Every other entry (a change, a refusal, a call waiting for
 * a person) commits before `append` settles.
 *
 * @example
 * auditEntryMayWait({ ...entry, sideEffect: 'read', decision: 'allowed' }); // true
 */
export function auditEntryMayWait(entry: Pick<AuditEntry, 'sideEffect' | 'decision'>): boolean {
  return entry.sideEffect === 'read' && executedDecisions.includes(entry.decision as ExecutedDecision);
}
