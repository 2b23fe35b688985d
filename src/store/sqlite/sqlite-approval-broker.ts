import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { ApprovalResolutionError } from '../../errors/approval-resolution-error.js';
import type { ApprovalBroker, ApprovalRequest, ApprovalState, DecideOptions } from '../../gate/approval-broker.js';
import { retryWhileBusy } from '../../util/retry-while-busy.js';
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
import { type PreparedStatements, preparedStatements } from './prepared-statements.js';

export type { ApprovalRecord, ApprovalStatus } from '../approval-rows.js';

const dayMs = 24 * 60 * 60 * 1000;

/**
 * Approvals that survive a restart. The first time a call needs one, a
 * pending record is written (the run stops with `awaiting_approval`); a
 * person decides with `resolveApproval`, possibly in another process; when
 * the run is resumed, `decide` returns that decision, but only for the same
 * run, tool call and argument hash, and an approval lets its call through
 * once. A pending approval older than `ttlMs` is denied as timed out; an
 * approval given is a grant that expires unused after `grantTtlMs` and is
 * void under another policy version (the rules: `approvalUse`).
 *
 * @example
 * const broker = new SqliteApprovalBroker({ database: store.database });
 * await runSession({ sessions, sessionId, userMessage, model, tools, gate, approvals: broker });
 * // later, anywhere:
 * broker.resolveApproval({ approvalId, decision: 'approve', approver: 'li.wei' });
 */
export class SqliteApprovalBroker implements ApprovalBroker {
  readonly #database: Database.Database;
  readonly #statement: PreparedStatements;
  readonly #ttlMs: number;
  readonly #grantTtlMs: number;
  readonly #now: () => number;
  readonly #createId: () => string;
  readonly #busyWaitMs: number;

  constructor({
    database,
    ttlMs = dayMs,
    grantTtlMs = dayMs,
    now = Date.now,
    createId = () => `ap_${randomBytes(6).toString('hex')}`,
    busyWaitMs = 0,
  }: {
    database: Database.Database;
    /** How long a pending approval waits before it is denied as timed out. Default one day. */
    ttlMs?: number;
    /** How long an approval, once given, may be used before it expires unused. Default one day. */
    grantTtlMs?: number;
    now?: () => number;
    createId?: () => string;
    /**
     * While another connection holds the database locked, retry a run's
     * approval write (`decide`) asynchronously for up to this long
     * (`retryWhileBusy`) instead of failing at once. Default 0: one try.
     */
    busyWaitMs?: number;
  }) {
    this.#database = database;
    this.#statement = preparedStatements(database);
    this.#busyWaitMs = busyWaitMs;
    this.#ttlMs = ttlMs;
    this.#grantTtlMs = grantTtlMs;
    this.#now = now;
    this.#createId = createId;
  }

  async decide(request: ApprovalRequest, options: DecideOptions): Promise<ApprovalState> {
    const decideNow = () => this.#database.transaction(() => this.#decideNow(request)).immediate();
    const state =
      this.#busyWaitMs === 0
        ? decideNow()
        : await retryWhileBusy({ operation: 'approval', waitMs: this.#busyWaitMs, write: decideNow });
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
  resolveApproval({
    approvalId,
    decision,
    approver,
    reason,
  }: {
    approvalId: string;
    decision: 'approve' | 'reject';
    approver: string;
    reason?: string;
  }): ApprovalRecord {
    if (typeof approver !== 'string' || approver.trim() === '') {
      throw new ApprovalResolutionError({ approvalId, failure: 'missing_approver' });
    }
    // An expired approval is marked denied even though the call fails: the error is thrown after the commit.
    const outcome = this.#database
      .transaction((): ApprovalRecord | ApprovalResolutionError => {
        const row = this.#row(approvalId);
        const now = this.#now();
        const step = resolveApprovalRow(row, { approvalId, decision, now, grantTtlMs: this.#grantTtlMs });
        if (step.write === 'expire') this.#expire(row as ApprovalRow, now);
        if (step.write !== 'decide') return step.error;
        this.#statement(
          `UPDATE approvals SET status = ?, approver = ?, decision_reason = ?, decided_at = ?, grant_expires_at = ?
             WHERE approval_id = ? AND status = 'pending'`,
        ).run(step.status, approver.trim(), reason ?? null, now, step.grantExpiresAt, approvalId);
        return toApprovalRecord(this.#row(approvalId) as ApprovalRow);
      })
      .immediate();
    if (ApprovalResolutionError.isInstance(outcome)) throw outcome;
    return outcome;
  }

  getApproval(approvalId: string): ApprovalRecord | undefined {
    const row = this.#row(approvalId);
    return row === undefined ? undefined : toApprovalRecord(row);
  }

  /** Approvals, oldest first, optionally only of one status, run or session. */
  listApprovals({
    status,
    runId,
    sessionId,
  }: {
    status?: ApprovalStatus;
    runId?: string;
    sessionId?: string;
  } = {}): readonly ApprovalRecord[] {
    const clauses: string[] = [];
    const values: string[] = [];
    if (status !== undefined) {
      clauses.push('status = ?');
      values.push(status);
    }
    if (runId !== undefined) {
      clauses.push('run_id = ?');
      values.push(runId);
    }
    if (sessionId !== undefined) {
      clauses.push('session_id = ?');
      values.push(sessionId);
    }
    const where = clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`;
    const rows = this.#statement(`SELECT * FROM approvals ${where} ORDER BY created_at, rowid`).all(
      ...values,
    ) as ApprovalRow[];
    return rows.map(toApprovalRecord);
  }

  /** How many approvals of a run still wait for a person. */
  countPending({ runId }: { runId: string }): number {
    const row = this.#statement(
      "SELECT COUNT(*) AS pending FROM approvals WHERE run_id = ? AND status = 'pending'",
    ).get(runId) as { pending: number };
    return row.pending;
  }

  /** The approval's state; `asked` when this call created its pending record. */
  #decideNow(
    request: ApprovalRequest,
  ): ApprovalState | { readonly status: 'asked'; readonly approvalId: string; readonly expiresAt: number } {
    const now = this.#now();
    const row = this.#statement('SELECT * FROM approvals WHERE run_id = ? AND tool_call_id = ?').get(
      request.runId,
      request.toolCallId,
    ) as ApprovalRow | undefined;
    if (row === undefined) {
      const approvalId = this.#createId();
      this.#statement(
        `INSERT INTO approvals (${pendingApprovalColumns})
           VALUES (${pendingApprovalColumns
             .split(',')
             .map(() => '?')
             .join(', ')})`,
      ).run(...pendingApprovalValues(request, { approvalId, now, ttlMs: this.#ttlMs }));
      return { status: 'asked', approvalId, expiresAt: now + this.#ttlMs };
    }
    const use = approvalUse(row, request, now);
    switch (use.write) {
      case 'none':
        return use.state;
      case 'expire':
        this.#expire(row, now);
        return use.state;
      case 'void':
        this.#statement(
          `UPDATE approvals SET status = 'denied', decision_reason = ?
             WHERE approval_id = ? AND status = 'approved' AND consumed_at IS NULL`,
        ).run(use.reason, row.approval_id);
        return use.state;
      case 'consume': {
        const consumed = this.#statement(
          'UPDATE approvals SET consumed_at = ? WHERE approval_id = ? AND consumed_at IS NULL',
        ).run(now, row.approval_id);
        return consumed.changes === 0 ? use.used : use.state;
      }
    }
  }

  #expire(row: ApprovalRow, now: number): void {
    this.#statement(
      `UPDATE approvals SET status = 'denied', decision_reason = 'timed out', decided_at = ?
         WHERE approval_id = ? AND status = 'pending'`,
    ).run(now, row.approval_id);
  }

  #row(approvalId: string): ApprovalRow | undefined {
    return this.#statement('SELECT * FROM approvals WHERE approval_id = ?').get(approvalId) as ApprovalRow | undefined;
  }
}
