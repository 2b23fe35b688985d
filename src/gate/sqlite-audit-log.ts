import type Database from 'better-sqlite3';
import type { SideEffect } from '../tools/tool-types.js';
import type { AuditDecision, AuditEntry, AuditLog } from './audit-log.js';

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
}

/**
 * The append-only audit log in SQLite: who (session, run), what (tool, tier,
 * arguments with sensitive fields redacted, their sha256), whether the gate
 * or a person let it through, and how it ended. Triggers refuse UPDATE and
 * DELETE, so the application cannot rewrite history through SQL either.
 *
 * @example
 * const audit = new SqliteAuditLog({ database: store.database });
 * await runAgent({ model, tools, messages, audit });
 * audit.listAudit({ sessionId }).map((entry) => entry.decision);
 */
export class SqliteAuditLog implements AuditLog {
  readonly #database: Database.Database;
  readonly #insert: Database.Statement;

  constructor({ database }: { database: Database.Database }) {
    this.#database = database;
    this.#insert = database.prepare(
      `INSERT INTO audit_log (at, session_id, run_id, step, tool_call_id, tool, side_effect, arguments_hash, arguments,
         decision, rule, approver, outcome, duration_ms)
       VALUES (@at, @sessionId, @runId, @step, @toolCallId, @tool, @sideEffect, @argumentsHash, @arguments,
         @decision, @rule, @approver, @outcome, @durationMs)`,
    );
  }

  append(entry: AuditEntry): void {
    this.#insert.run({
      ...entry,
      sessionId: entry.sessionId ?? null,
      arguments: JSON.stringify(entry.arguments),
      rule: entry.rule ?? null,
      approver: entry.approver ?? null,
    });
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
    const rows = this.#database
      .prepare(`SELECT * FROM audit_log ${where} ORDER BY audit_id ${bounded}`)
      .all(...values) as AuditRow[];
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
  };
}
