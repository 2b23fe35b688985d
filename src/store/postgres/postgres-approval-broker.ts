import { randomBytes } from 'node:crypto';
import { ApprovalResolutionError } from '../../errors/approval-resolution-error.js';
import type { ApprovalBroker, ApprovalRequest, ApprovalState, DecideOptions } from '../../gate/approval-broker.js';
import {
  type ApprovalRecord,
  type ApprovalRow,
  type ApprovalStatus,
  approvalUse,
  pendingApprovalColumns,
  pendingApprovalValues,
  resolveApprovalRow,
  toApprovalRecord,
} from '../approval-rows.js';
import { namedStatement } from './named-statement.js';
import type { PostgresDatabase, PostgresQuery } from './postgres-database.js';

const dayMs = 24 * 60 * 60 * 1000;
const columns = `approval_id, run_id, session_id, step, tool_call_id, tool, arguments, arguments_hash, rule, reason,
  status, approver, decision_reason, created_at, decided_at, expires_at, consumed_at, tool_fingerprint,
  policy_version, grant_expires_at`;

const insertPending = namedStatement(
  `INSERT INTO approvals (${pendingApprovalColumns})
   VALUES (${pendingApprovalColumns
     .split(',')
     .map((_, index) => `$${index + 1}`)
     .join(', ')})
   ON CONFLICT (run_id, tool_call_id) DO NOTHING`,
);
const lockByCall = namedStatement(
  `SELECT ${columns} FROM approvals WHERE run_id = $1 AND tool_call_id = $2 FOR UPDATE`,
);
const lockById = namedStatement(`SELECT ${columns} FROM approvals WHERE approval_id = $1 FOR UPDATE`);
const selectById = namedStatement(`SELECT ${columns} FROM approvals WHERE approval_id = $1`);
const consume = namedStatement('UPDATE approvals SET consumed_at = $1 WHERE approval_id = $2 AND consumed_at IS NULL');
const decide = namedStatement(
  `UPDATE approvals SET status = $1, approver = $2, decision_reason = $3, decided_at = $4, grant_expires_at = $5
   WHERE approval_id = $6 AND status = 'pending'
   RETURNING ${columns}`,
);
const voidGrant = namedStatement(
  `UPDATE approvals SET status = 'denied', decision_reason = $1
   WHERE approval_id = $2 AND status = 'approved' AND consumed_at IS NULL`,
);
const expire = namedStatement(
  `UPDATE approvals SET status = 'denied', decision_reason = 'timed out', decided_at = $1
   WHERE approval_id = $2 AND status = 'pending'`,
);
const countPending = namedStatement(
  "SELECT count(*) AS pending FROM approvals WHERE run_id = $1 AND status = 'pending'",
);

/**
 * Approvals in PostgreSQL, with the behaviour of `SqliteApprovalBroker`:
 * the first time a call needs one, a pending record is written (the run
 * stops with `awaiting_approval`); a person decides with `resolveApproval`,
 * from any node; when the run is resumed, `decide` returns that decision,
 * but only for the same run, tool call and argument hash, and an approval
 * lets its call through once. A pending approval older than `ttlMs` is
 * denied as timed out. Each decision is one transaction holding the
 * approval's row lock, so two nodes deciding the same call at once see one
 * record, and only one of them consumes it. Who may decide (four eyes) is
 * enforced above the broker, as for SQLite.
 *
 * @example
 * const { approvals } = await openPostgresBackend({ connectionString });
 * await runSession({ sessions, sessionId, userMessage, model, tools, gate, approvals });
 * // later, on any node:
 * await approvals.resolveApproval({ approvalId, decision: 'approve', approver: 'li.wei' });
 */
export class PostgresApprovalBroker implements ApprovalBroker {
  readonly #database: PostgresDatabase;
  readonly #ttlMs: number;
  readonly #grantTtlMs: number;
  readonly #now: () => number;
  readonly #createId: () => string;

  constructor({
    database,
    ttlMs = dayMs,
    grantTtlMs = dayMs,
    now = Date.now,
    createId = () => `ap_${randomBytes(6).toString('hex')}`,
  }: {
    database: PostgresDatabase;
    /** How long a pending approval waits before it is denied as timed out. Default one day. */
    ttlMs?: number;
    /** How long an approval, once given, may be used before it expires unused. Default one day. */
    grantTtlMs?: number;
    now?: () => number;
    createId?: () => string;
  }) {
    this.#database = database;
    this.#ttlMs = ttlMs;
    this.#grantTtlMs = grantTtlMs;
    this.#now = now;
    this.#createId = createId;
  }

  async decide(request: ApprovalRequest, options: DecideOptions): Promise<ApprovalState> {
    const state = await this.#database.transaction((query) => this.#decideNow(query, request));
    if (state.status !== 'asked') return state;
    // A pending record was just created: a person is asked now, once.
    options.onRequired?.(state.approvalId, { expiresAt: state.expiresAt });
    return { status: 'pending', approvalId: state.approvalId };
  }

  /**
   * Records a person's decision on a pending approval. Throws
   * `ApprovalResolutionError` when the approval does not exist, was already
   * decided, or has expired (it is then marked denied).
   */
  async resolveApproval({
    approvalId,
    decision,
    approver,
    reason,
  }: {
    approvalId: string;
    decision: 'approve' | 'reject';
    approver: string;
    reason?: string;
  }): Promise<ApprovalRecord> {
    if (typeof approver !== 'string' || approver.trim() === '') {
      throw new ApprovalResolutionError({ approvalId, failure: 'missing_approver' });
    }
    // An expired approval is marked denied even though the call fails: the error is thrown after the commit.
    const outcome = await this.#database.transaction(
      async (query): Promise<ApprovalRecord | ApprovalResolutionError> => {
        const row = (await query<ApprovalRow>(lockById, [approvalId])).rows[0];
        const now = this.#now();
        const step = resolveApprovalRow(row, { approvalId, decision, now, grantTtlMs: this.#grantTtlMs });
        if (step.write === 'expire') await query(expire, [now, approvalId]);
        if (step.write !== 'decide') return step.error;
        const decided = await query<ApprovalRow>(decide, [
          step.status,
          approver.trim(),
          reason ?? null,
          now,
          step.grantExpiresAt,
          approvalId,
        ]);
        return toApprovalRecord(decided.rows[0] ?? (row as ApprovalRow));
      },
    );
    if (ApprovalResolutionError.isInstance(outcome)) throw outcome;
    return outcome;
  }

  async getApproval(approvalId: string): Promise<ApprovalRecord | undefined> {
    const row = (await this.#database.query<ApprovalRow>(selectById, [approvalId])).rows[0];
    return row === undefined ? undefined : toApprovalRecord(row);
  }

  /** Approvals, oldest first, optionally only of one status, run or session. */
  async listApprovals({
    status,
    runId,
    sessionId,
  }: {
    status?: ApprovalStatus;
    runId?: string;
    sessionId?: string;
  } = {}): Promise<readonly ApprovalRecord[]> {
    const clauses: string[] = [];
    const values: string[] = [];
    for (const [column, value] of [
      ['status', status],
      ['run_id', runId],
      ['session_id', sessionId],
    ] as const) {
      if (value === undefined) continue;
      values.push(value);
      clauses.push(`${column} = $${values.length}`);
    }
    const where = clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`;
    const { rows } = await this.#database.query<ApprovalRow>(
      namedStatement(`SELECT ${columns} FROM approvals ${where} ORDER BY created_at, position`),
      values,
    );
    return rows.map(toApprovalRecord);
  }

  /** How many approvals of a run still wait for a person. */
  async countPending({ runId }: { runId: string }): Promise<number> {
    const { rows } = await this.#database.query<{ pending: number }>(countPending, [runId]);
    return rows[0]?.pending ?? 0;
  }

  /** The approval's state; `asked` when this call created its pending record. */
  async #decideNow(
    query: PostgresQuery,
    request: ApprovalRequest,
  ): Promise<ApprovalState | { readonly status: 'asked'; readonly approvalId: string; readonly expiresAt: number }> {
    const now = this.#now();
    const created = this.#createId();
    // A concurrent decide of the same call waits here for this transaction, then finds the record.
    const inserted = await query(
      insertPending,
      pendingApprovalValues(request, { approvalId: created, now, ttlMs: this.#ttlMs }),
    );
    if (inserted.rowCount === 1) return { status: 'asked', approvalId: created, expiresAt: now + this.#ttlMs };
    const row = (await query<ApprovalRow>(lockByCall, [request.runId, request.toolCallId])).rows[0];
    if (row === undefined) {
      // Approvals are never deleted; a record that conflicted and then vanished is not arbiter's doing.
      return { status: 'denied', approvalId: created, code: 'approval_denied', reason: 'approval record vanished' };
    }
    const use = approvalUse(row, request, now);
    switch (use.write) {
      case 'none':
        return use.state;
      case 'expire':
        await query(expire, [now, row.approval_id]);
        return use.state;
      case 'void':
        await query(voidGrant, [use.reason, row.approval_id]);
        return use.state;
      case 'consume': {
        const consumed = await query(consume, [now, row.approval_id]);
        return consumed.rowCount === 0 ? use.used : use.state;
      }
    }
  }
}
