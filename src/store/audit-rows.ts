import type { AuditDecision, AuditEntry } from '../gate/audit-log.js';
import type { SideEffect } from '../tools/tool-types.js';

/**
 * An audit entry as stored, with its position in the log.
 *
 * @example
 * const [first]: readonly AuditRecord[] = audit.listAudit({ sessionId });
 */
export interface AuditRecord extends AuditEntry {
  /** Increasing with every append; the log's order. */
  readonly auditId: number;
}

/** A row of `audit_log` as both backends read it. */
export interface AuditRow {
  audit_id: number;
  at: number;
  session_id: string | null;
  run_id: string;
  step: number;
  tool_call_id: string;
  tool: string;
  side_effect: SideEffect;
  arguments_hash: string;
  arguments: string;
  decision: AuditDecision;
  rule: string | null;
  approver: string | null;
  outcome: string;
  duration_ms: number;
  tenant_id: string | null;
  user_id: string | null;
  replay_of_run_id: string | null;
  replay_of_tool_call_id: string | null;
}

/**
 * The columns an append writes, in the order of `toAuditRowValues`.
 *
 * @example
 * `INSERT INTO audit_log (${auditWrittenColumns}) VALUES (…)`;
 */
export const auditWrittenColumns =
  'at, session_id, run_id, step, tool_call_id, tool, side_effect, arguments_hash, arguments, decision, rule, approver, ' +
  'outcome, duration_ms, tenant_id, user_id, replay_of_run_id, replay_of_tool_call_id';

/** An audit row's values, in the order of `auditWrittenColumns`. */
export type AuditRowValues = (string | number | null)[];

/**
 * The row as it is written, taken when the entry is appended (later changes to `entry` are not recorded).
 *
 * @example
 * insert.run(...toAuditRowValues(entry));
 */
export function toAuditRowValues(entry: AuditEntry): AuditRowValues {
  return [
    entry.at,
    entry.sessionId ?? null,
    entry.runId,
    entry.step,
    entry.toolCallId,
    entry.tool,
    entry.sideEffect,
    entry.argumentsHash,
    JSON.stringify(entry.arguments),
    entry.decision,
    entry.rule ?? null,
    entry.approver ?? null,
    entry.outcome,
    entry.durationMs,
    entry.tenantId ?? null,
    entry.userId ?? null,
    entry.replayOf?.runId ?? null,
    entry.replayOf?.toolCallId ?? null,
  ];
}

/**
 * A stored row as the entry it records.
 *
 * @example
 * const records = rows.map(toAuditRecord);
 */
export function toAuditRecord(row: AuditRow): AuditRecord {
  return {
    auditId: row.audit_id,
    at: row.at,
    sessionId: row.session_id ?? undefined,
    runId: row.run_id,
    step: row.step,
    toolCallId: row.tool_call_id,
    tool: row.tool,
    sideEffect: row.side_effect,
    argumentsHash: row.arguments_hash,
    arguments: JSON.parse(row.arguments) as Record<string, unknown>,
    decision: row.decision,
    rule: row.rule ?? undefined,
    approver: row.approver ?? undefined,
    outcome: row.outcome,
    durationMs: row.duration_ms,
    ...(row.tenant_id === null ? {} : { tenantId: row.tenant_id }),
    ...(row.user_id === null ? {} : { userId: row.user_id }),
    ...(row.replay_of_run_id === null || row.replay_of_tool_call_id === null
      ? {}
      : { replayOf: { runId: row.replay_of_run_id, toolCallId: row.replay_of_tool_call_id } }),
  };
}
