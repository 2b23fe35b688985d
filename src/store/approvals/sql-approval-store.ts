import { randomBytes } from 'node:crypto';
import { ApprovalResolutionError } from '../../errors/approval-resolution-error.js';
import type { ApprovalRequest, ApprovalState, DecideOptions } from '../../gate/approval-broker.js';
import type { ApprovalRecord } from '../../gate/approval-record.js';
import { approvalResolution, approvalUse, decisionApprover, pendingApproval } from '../../gate/approval-rules.js';
import { retryWhileBusy } from '../../util/retry-while-busy.js';
import { type ApprovalRow, pendingApprovalValues, toApprovalRecord } from '../approval-rows.js';
import type { ApprovalStore } from '../backend.js';
import type { Answer, SqlMode, SqlPort } from '../sql/sql-port.js';
import { rows, run, type SqlProgram, transaction } from '../sql/sql-program.js';
import {
  type ApprovalFilter,
  consumeApproval,
  countPendingApprovals,
  decideApproval,
  expireApproval,
  insertPendingApproval,
  listApprovals,
  lockApproval,
  lockApprovalOfCall,
  selectApproval,
  voidGrant,
} from './approval-statements.js';

const dayMs = 24 * 60 * 60 * 1000;

/** A run's decision as the transaction ends: its state, or `asked` when it created the pending approval. */
type DecidedNow = ApprovalState | { readonly status: 'asked'; readonly approvalId: string; readonly expiresAt: number };

/** A person's decision, as `resolveApproval` takes it. */
export interface ApprovalDecision {
  readonly approvalId: string;
  readonly decision: 'approve' | 'reject';
  /** Who decided; required, trimmed. */
  readonly approver: string;
  readonly reason?: string;
}

/** What `SqlApprovalStore` is built with. */
export interface SqlApprovalStoreOptions<Mode extends SqlMode> {
  /** The database, as the dialect port runs programs on it. */
  readonly port: SqlPort<Mode>;
  /** How long a pending approval waits before it is denied as timed out. Default one day. */
  readonly ttlMs?: number;
  /** How long an approval, once given, may be used before it expires unused. Default one day. */
  readonly grantTtlMs?: number;
  readonly now?: () => number;
  readonly createId?: () => string;
  /**
   * SQLite only: while another connection holds the database locked, retry
   * a run's approval write (`decide`) asynchronously for up to this long
   * (`retryWhileBusy`) instead of failing at once. Default 0: one try.
   */
  readonly busyWaitMs?: number;
}

/**
 * Approvals that survive a restart, on either SQL dialect. The first time
 * a call needs one, a pending record is written (the run stops with
 * `awaiting_approval`); a person decides with `resolveApproval`, possibly
 * in another process or on another node; when the run is resumed, `decide`
 * returns that decision. What a decision may be and when a grant applies
 * are the gate's rules (`approval-rules.ts`); this class reads the
 * approval, asks them, and writes what they say, each decision in one
 * transaction holding the approval (PostgreSQL: its row lock, so two nodes
 * deciding the same call at once see one record and only one consumes it).
 * On SQLite every method but `decide` answers synchronously.
 *
 * @example
 * const approvals = new SqlApprovalStore({ port: new SqlitePort(database) });
 * await runSession({ sessions, sessionId, userMessage, model, tools, gate, approvals });
 * // later, anywhere:
 * approvals.resolveApproval({ approvalId, decision: 'approve', approver: 'li.wei' });
 */
export class SqlApprovalStore<Mode extends SqlMode> implements ApprovalStore {
  readonly #port: SqlPort<Mode>;
  readonly #ttlMs: number;
  readonly #grantTtlMs: number;
  readonly #now: () => number;
  readonly #createId: () => string;
  readonly #busyWaitMs: number;

  constructor({
    port,
    ttlMs = dayMs,
    grantTtlMs = dayMs,
    now = Date.now,
    createId = () => `ap_${randomBytes(6).toString('hex')}`,
    busyWaitMs = 0,
  }: SqlApprovalStoreOptions<Mode>) {
    this.#port = port;
    this.#ttlMs = ttlMs;
    this.#grantTtlMs = grantTtlMs;
    this.#now = now;
    this.#createId = createId;
    this.#busyWaitMs = busyWaitMs;
  }

  /**
   * A run's question about its call: creates the pending approval the first
   * time (announced once through `onRequired`), and later answers with the
   * decision under the gate's rules (`approvalUse`), consuming a grant once.
   */
  async decide(request: ApprovalRequest, options: DecideOptions): Promise<ApprovalState> {
    const decideNow = () => this.#port.run(transaction(() => this.#decideNow(request)));
    const state =
      this.#busyWaitMs === 0
        ? await decideNow()
        : await retryWhileBusy({ operation: 'approval', waitMs: this.#busyWaitMs, write: decideNow });
    if (state.status !== 'asked') return state;
    // A pending record was just created: a person is asked now, once.
    options.onRequired?.(state.approvalId, { expiresAt: state.expiresAt });
    return { status: 'pending', approvalId: state.approvalId };
  }

  /**
   * Records a person's decision on a pending approval. Throws
   * `ApprovalResolutionError` when the decision names no approver, or the
   * approval does not exist, was already decided, or has expired (it is
   * then marked denied).
   */
  resolveApproval(decision: ApprovalDecision): Answer<Mode, ApprovalRecord> {
    return this.#port.run(this.#resolve(decision));
  }

  /** One approval by id; undefined when there is none. */
  getApproval(approvalId: string): Answer<Mode, ApprovalRecord | undefined> {
    return this.#port.run(readApproval(approvalId));
  }

  /** Approvals, oldest first, optionally only of one status, run or session. */
  listApprovals(filter: ApprovalFilter = {}): Answer<Mode, readonly ApprovalRecord[]> {
    return this.#port.run(readApprovals(filter));
  }

  /** How many approvals of a run still wait for a person. */
  countPending({ runId }: { runId: string }): Answer<Mode, number> {
    return this.#port.run(countPending(runId));
  }

  /** Inside the decision's transaction: the approval's state, `asked` when this call created it. */
  *#decideNow(request: ApprovalRequest): SqlProgram<DecidedNow> {
    const now = this.#now();
    const ofCall = [request.runId, request.toolCallId];
    let [row] = yield* rows<ApprovalRow>(lockApprovalOfCall, ofCall);
    if (row === undefined) {
      const approval = pendingApproval(request, { approvalId: this.#createId(), now, ttlMs: this.#ttlMs });
      // A concurrent decide of the same call (another node) makes this insert wait for it, then insert nothing.
      if ((yield* run(insertPendingApproval, pendingApprovalValues(approval))) === 1) {
        return { status: 'asked', approvalId: approval.approvalId, expiresAt: approval.expiresAt };
      }
      [row] = yield* rows<ApprovalRow>(lockApprovalOfCall, ofCall);
      if (row === undefined) {
        // Approvals are never deleted; a record that conflicted and then vanished is not arbiter's doing.
        const { approvalId } = approval;
        return { status: 'denied', approvalId, code: 'approval_denied', reason: 'approval record vanished' };
      }
    }
    const use = approvalUse(toApprovalRecord(row), request, now);
    switch (use.write) {
      case 'none':
        return use.state;
      case 'expire':
        yield* run(expireApproval, [now, row.approval_id]);
        return use.state;
      case 'void':
        yield* run(voidGrant, [use.reason, row.approval_id]);
        return use.state;
      case 'consume':
        return (yield* run(consumeApproval, [now, row.approval_id])) === 0 ? use.used : use.state;
    }
  }

  *#resolve(decision: ApprovalDecision): SqlProgram<ApprovalRecord> {
    const decidedBy = decisionApprover(decision);
    // An expired approval is marked denied even though the call fails: the error is thrown after the commit.
    const outcome = yield* transaction(() => this.#record(decision, decidedBy));
    if (ApprovalResolutionError.isInstance(outcome)) throw outcome;
    return outcome;
  }

  /** Inside the resolution's transaction: the approval as decided, or why it could not be. */
  *#record(
    { approvalId, decision, reason }: ApprovalDecision,
    decidedBy: string,
  ): SqlProgram<ApprovalRecord | ApprovalResolutionError> {
    const [row] = yield* rows<ApprovalRow>(lockApproval, [approvalId]);
    const now = this.#now();
    const approval = row === undefined ? undefined : toApprovalRecord(row);
    const resolution = approvalResolution(approval, { approvalId, decision, now, grantTtlMs: this.#grantTtlMs });
    if (resolution.write === 'expire') yield* run(expireApproval, [now, approvalId]);
    if (resolution.write !== 'decide') return resolution.error;
    const [decided] = yield* rows<ApprovalRow>(decideApproval, [
      resolution.status,
      decidedBy,
      reason ?? null,
      now,
      resolution.grantExpiresAt ?? null,
      approvalId,
    ]);
    return decided === undefined ? (approval as ApprovalRecord) : toApprovalRecord(decided);
  }
}

function* readApproval(approvalId: string): SqlProgram<ApprovalRecord | undefined> {
  const [row] = yield* rows<ApprovalRow>(selectApproval, [approvalId]);
  return row === undefined ? undefined : toApprovalRecord(row);
}

function* readApprovals(filter: ApprovalFilter): SqlProgram<readonly ApprovalRecord[]> {
  const { statement, values } = listApprovals(filter);
  return (yield* rows<ApprovalRow>(statement, values)).map(toApprovalRecord);
}

function* countPending(runId: string): SqlProgram<number> {
  const [row] = yield* rows<{ pending: number }>(countPendingApprovals, [runId]);
  return row?.pending ?? 0;
}
