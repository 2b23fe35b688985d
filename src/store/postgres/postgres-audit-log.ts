import type { CallHistoryFilter, CallHistorySource, ExecutedDecision, PastCall } from '../../core/call-history.js';
import type { AuditDecision, AuditEntry, AuditLog } from '../../gate/audit-log.js';
import type { SideEffect } from '../../tools/tool-types.js';
import type { AuditRecord } from '../sqlite/sqlite-audit-log.js';
import { namedStatement } from './named-statement.js';
import type { PostgresDatabase } from './postgres-database.js';

const executed: readonly ExecutedDecision[] = ['allowed', 'auto_approved', 'approved'];

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

const columns = `audit_id, at, session_id, run_id, step, tool_call_id, tool, side_effect, arguments_hash, arguments,
  decision, rule, approver, outcome, duration_ms, tenant_id, user_id, replay_of_run_id, replay_of_tool_call_id`;
const append = namedStatement(
  `INSERT INTO audit_log (at, session_id, run_id, step, tool_call_id, tool, side_effect, arguments_hash, arguments,
     decision, rule, approver, outcome, duration_ms, tenant_id, user_id, replay_of_run_id, replay_of_tool_call_id)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
);

/**
 * The append-only audit log in PostgreSQL, with the same columns and
 * indexes as SQLite's (see `SqliteAuditLog`). A trigger refuses UPDATE,
 * DELETE and TRUNCATE, so the application cannot rewrite history through
 * SQL either. It is also the `CallHistorySource` rules read
 * `context.history` from.
 *
 * @example
 * const { audit } = await openPostgresBackend({ connectionString });
 * await runAgent({ model, tools, messages, audit });
 * (await audit.listAudit({ sessionId })).map((entry) => entry.decision);
 */
export class PostgresAuditLog implements AuditLog, CallHistorySource {
  readonly #database: PostgresDatabase;

  constructor({ database }: { database: PostgresDatabase }) {
    this.#database = database;
  }

  async append(entry: AuditEntry): Promise<void> {
    await this.#database.query(append, [
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
    ]);
  }

  /**
   * Calls of one tool that executed and succeeded (outcome `ok`), oldest
   * first, narrowed by run, session, principal, time and decision.
   */
  async findCalls({
    tool,
    runId,
    sessionId,
    tenantId,
    userId,
    since,
    decisions = executed,
  }: CallHistoryFilter): Promise<PastCall[]> {
    const values: unknown[] = [tool, [...decisions]];
    const clauses = ['tool = $1', "outcome = 'ok'", 'decision = ANY($2::text[])'];
    for (const [clause, value] of [
      ['run_id = $', runId],
      ['session_id = $', sessionId],
      ['tenant_id IS NOT DISTINCT FROM $', tenantId],
      ['user_id IS NOT DISTINCT FROM $', userId],
      ['at >= $', since],
    ] as const) {
      if (value === undefined) continue;
      values.push(value);
      clauses.push(`${clause}${values.length}`);
    }
    const { rows } = await this.#database.query<AuditRow>(
      namedStatement(`SELECT ${columns} FROM audit_log WHERE ${clauses.join(' AND ')} ORDER BY audit_id`),
      values,
    );
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
  async listAudit({
    sessionId,
    runId,
    toolCallId,
    limit,
  }: {
    sessionId?: string;
    runId?: string;
    toolCallId?: string;
    limit?: number;
  } = {}): Promise<readonly AuditRecord[]> {
    const clauses: string[] = [];
    const values: unknown[] = [];
    for (const [column, value] of [
      ['session_id', sessionId],
      ['run_id', runId],
      ['tool_call_id', toolCallId],
    ] as const) {
      if (value === undefined) continue;
      values.push(value);
      clauses.push(`${column} = $${values.length}`);
    }
    const where = clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`;
    if (limit !== undefined) values.push(limit);
    const bounded = limit === undefined ? '' : `LIMIT $${values.length}`;
    const { rows } = await this.#database.query<AuditRow>(
      namedStatement(`SELECT ${columns} FROM audit_log ${where} ORDER BY audit_id ${bounded}`),
      values,
    );
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
