import type Database from 'better-sqlite3';
import type { CallHistoryFilter, CallHistorySource, ExecutedDecision, PastCall } from '../../core/call-history.js';
import type { AuditDecision, AuditEntry, AuditLog } from '../../gate/audit-log.js';
import type { SideEffect } from '../../tools/tool-types.js';
import { retryWhileBusy } from '../../util/retry-while-busy.js';
import { type PreparedStatements, preparedStatements } from './prepared-statements.js';

const executed: readonly ExecutedDecision[] = ['allowed', 'auto_approved', 'approved'];

/** An audit entry as stored, with its position in the log. */
export interface AuditRecord extends AuditEntry {
  /** Increasing with every append; the log's order. */
  readonly auditId: number;
}

interface AuditRow {
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
 * The append-only audit log in SQLite: who (principal, session, run), what
 * (tool, tier, arguments with sensitive fields redacted, their sha256),
 * whether the gate or a person let it through, how it ended, and for a
 * replay which call executed first. Triggers refuse UPDATE and DELETE, so
 * the application cannot rewrite history through SQL either. It is also
 * the `CallHistorySource` rules read `context.history` from (indexed by
 * principal, tool and time, and by run).
 *
 * @example
 * const audit = new SqliteAuditLog({ database: store.database });
 * await runAgent({ model, tools, messages, audit });
 * audit.listAudit({ sessionId }).map((entry) => entry.decision);
 */
export class SqliteAuditLog implements AuditLog, CallHistorySource {
  readonly #statement: PreparedStatements;
  readonly #busyWaitMs: number;

  constructor({
    database,
    busyWaitMs = 0,
  }: {
    database: Database.Database;
    /**
     * While another connection holds the database locked, retry an append
     * asynchronously for up to this long (`retryWhileBusy`) instead of
     * failing at once. Default 0: one try, within the connection's busy timeout.
     */
    busyWaitMs?: number;
  }) {
    this.#statement = preparedStatements(database);
    this.#busyWaitMs = busyWaitMs;
  }

  append(entry: AuditEntry): void | Promise<void> {
    if (this.#busyWaitMs === 0) {
      this.#write(entry);
      return;
    }
    return retryWhileBusy({ operation: 'audit', waitMs: this.#busyWaitMs, write: () => this.#write(entry) });
  }

  #write(entry: AuditEntry): void {
    this.#statement(
      `INSERT INTO audit_log (at, session_id, run_id, step, tool_call_id, tool, side_effect, arguments_hash, arguments,
         decision, rule, approver, outcome, duration_ms, tenant_id, user_id, replay_of_run_id, replay_of_tool_call_id)
       VALUES (@at, @sessionId, @runId, @step, @toolCallId, @tool, @sideEffect, @argumentsHash, @arguments,
         @decision, @rule, @approver, @outcome, @durationMs, @tenantId, @userId, @replayOfRunId, @replayOfToolCallId)`,
    ).run({
      at: entry.at,
      sessionId: entry.sessionId ?? null,
      runId: entry.runId,
      step: entry.step,
      toolCallId: entry.toolCallId,
      tool: entry.tool,
      sideEffect: entry.sideEffect,
      argumentsHash: entry.argumentsHash,
      arguments: JSON.stringify(entry.arguments),
      decision: entry.decision,
      rule: entry.rule ?? null,
      approver: entry.approver ?? null,
      outcome: entry.outcome,
      durationMs: entry.durationMs,
      tenantId: entry.tenantId ?? null,
      userId: entry.userId ?? null,
      replayOfRunId: entry.replayOf?.runId ?? null,
      replayOfToolCallId: entry.replayOf?.toolCallId ?? null,
    });
  }

  /**
   * Calls of one tool that executed and succeeded (outcome `ok`), oldest
   * first, narrowed by run, session, principal, time and decision.
   */
  findCalls({ tool, runId, sessionId, tenantId, userId, since, decisions = executed }: CallHistoryFilter): PastCall[] {
    const clauses = ['tool = ?', "outcome = 'ok'", `decision IN (${decisions.map(() => '?').join(', ')})`];
    const values: (string | number | null)[] = [tool, ...decisions];
    for (const [clause, value] of [
      ['run_id = ?', runId],
      ['session_id = ?', sessionId],
      ['tenant_id IS ?', tenantId],
      ['user_id IS ?', userId],
      ['at >= ?', since],
    ] as const) {
      if (value === undefined) continue;
      clauses.push(clause);
      values.push(value);
    }
    const rows = this.#statement(`SELECT * FROM audit_log WHERE ${clauses.join(' AND ')} ORDER BY audit_id`).all(
      ...values,
    ) as AuditRow[];
    return rows.map((row) => ({
      at: row.at,
      runId: row.run_id,
      sessionId: row.session_id ?? undefined,
      toolCallId: row.tool_call_id,
      tool: row.tool,
      arguments: JSON.parse(row.arguments) as Record<string, unknown>,
      decision: row.decision as ExecutedDecision,
      rule: row.rule ?? undefined,
    }));
  }

  /** Entries in the order they were appended, optionally of one session, run or tool call. */
  listAudit({
    sessionId,
    runId,
    toolCallId,
    limit,
  }: {
    sessionId?: string;
    runId?: string;
    toolCallId?: string;
    limit?: number;
  } = {}): readonly AuditRecord[] {
    const clauses: string[] = [];
    const values: (string | number)[] = [];
    for (const [column, value] of [
      ['session_id', sessionId],
      ['run_id', runId],
      ['tool_call_id', toolCallId],
    ] as const) {
      if (value === undefined) continue;
      clauses.push(`${column} = ?`);
      values.push(value);
    }
    const where = clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`;
    const bounded = limit === undefined ? '' : 'LIMIT ?';
    if (limit !== undefined) values.push(limit);
    const rows = this.#statement(`SELECT * FROM audit_log ${where} ORDER BY audit_id ${bounded}`).all(
      ...values,
    ) as AuditRow[];
    return rows.map(toRecord);
  }
}

function toRecord(row: AuditRow): AuditRecord {
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
