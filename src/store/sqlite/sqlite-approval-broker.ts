import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { ApprovalResolutionError } from '../../errors/approval-resolution-error.js';
import type { ApprovalBroker, ApprovalRequest, ApprovalState, DecideOptions } from '../../gate/approval-broker.js';
import { retryWhileBusy } from '../../util/retry-while-busy.js';
import { type ApprovalRecord, type ApprovalRow, type ApprovalStatus, toApprovalRecord } from '../approval-rows.js';
import { type PreparedStatements, preparedStatements } from './prepared-statements.js';

export type { ApprovalRecord, ApprovalStatus } from '../approval-rows.js';

const dayMs = 24 * 60 * 60 * 1000;

/**
 * Approvals that survive a restart. The first time a call needs one, a
 * pending record is written (the run stops with `awaiting_approval`); a
 * person decides with `resolveApproval`, possibly in another process; when
 * the run is resumed, `decide` returns that decision, but only for the same
 * run, tool call and argument hash, and an approval lets its call through
 * once. A pending approval older than `ttlMs` is denied as timed out.
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
  readonly #now: () => number;
  readonly #createId: () => string;
  readonly #busyWaitMs: number;

  constructor({
    database,
    ttlMs = dayMs,
    now = Date.now,
    createId = () => `ap_${randomBytes(6).toString('hex')}`,
    busyWaitMs = 0,
  }: {
    database: Database.Database;
    /** How long a pending approval waits before it is denied as timed out. Default one day. */
    ttlMs?: number;
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
    options.onRequired?.(state.approvalId);
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
        if (row === undefined) {
          return new ApprovalResolutionError({ approvalId, failure: 'not_found' });
        }
        if (row.status !== 'pending') {
          return new ApprovalResolutionError({
            approvalId,
            failure: 'already_decided',
            status: row.status,
            approver: row.approver,
          });
        }
        const now = this.#now();
        if (now >= row.expires_at) {
          this.#expire(row, now);
          return new ApprovalResolutionError({ approvalId, failure: 'expired', expiresAt: row.expires_at });
        }
        this.#statement(
          `UPDATE approvals SET status = ?, approver = ?, decision_reason = ?, decided_at = ?
             WHERE approval_id = ? AND status = 'pending'`,
        ).run(decision === 'approve' ? 'approved' : 'rejected', approver.trim(), reason ?? null, now, approvalId);
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
  #decideNow(request: ApprovalRequest): ApprovalState | { readonly status: 'asked'; readonly approvalId: string } {
    const now = this.#now();
    const row = this.#statement('SELECT * FROM approvals WHERE run_id = ? AND tool_call_id = ?').get(
      request.runId,
      request.toolCallId,
    ) as ApprovalRow | undefined;
    if (row === undefined) {
      const approvalId = this.#createId();
      this.#statement(
        `INSERT INTO approvals (approval_id, run_id, session_id, step, tool_call_id, tool, arguments, arguments_hash,
             rule, reason, status, created_at, expires_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
      ).run(
        approvalId,
        request.runId,
        request.sessionId ?? null,
        request.step,
        request.toolCallId,
        request.tool,
        JSON.stringify(request.arguments),
        request.argumentsHash,
        request.rule,
        request.reason,
        now,
        now + this.#ttlMs,
      );
      return { status: 'asked', approvalId };
    }
    const approvalId = row.approval_id;
    if (row.tool !== request.tool || row.arguments_hash !== request.argumentsHash) {
      return {
        status: 'denied',
        approvalId,
        code: 'arguments_changed',
        reason: `approval ${approvalId} was given for other arguments`,
      };
    }
    if (row.status === 'pending') {
      if (now < row.expires_at) return { status: 'pending', approvalId };
      this.#expire(row, now);
      return { status: 'denied', approvalId, code: 'approval_timed_out', reason: 'timed out' };
    }
    if (row.status === 'denied') {
      return { status: 'denied', approvalId, code: 'approval_timed_out', reason: row.decision_reason ?? 'denied' };
    }
    const consumed = this.#statement(
      'UPDATE approvals SET consumed_at = ? WHERE approval_id = ? AND consumed_at IS NULL',
    ).run(now, approvalId);
    const approver = row.approver ?? 'unknown';
    if (row.status === 'rejected') {
      return { status: 'rejected', approvalId, approver, reason: row.decision_reason ?? '' };
    }
    if (consumed.changes === 0) {
      return { status: 'denied', approvalId, code: 'approval_used', reason: 'already used', approver };
    }
    return { status: 'approved', approvalId, approver };
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
