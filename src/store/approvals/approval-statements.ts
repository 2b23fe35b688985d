/**
 * The SQL of `SqlApprovalStore`, in both dialects. They differ only where
 * PostgreSQL locks: a run's decision and a person's take the approval's row
 * lock (`FOR UPDATE`), so two nodes deciding at once see one record; on
 * SQLite the transaction is `BEGIN IMMEDIATE`, which already keeps every
 * other writer out. Listing orders by the order approvals were requested
 * in: SQLite's `rowid`, PostgreSQL's `position`.
 *
 * @module
 */
import type { ApprovalStatus } from '../../gate/approval-record.js';
import { type SqlStatement, sql, sqlOf } from '../sql/sql-program.js';

const columns = `approval_id, run_id, session_id, step, tool_call_id, tool, arguments, arguments_hash, rule, reason,
  status, approver, decision_reason, created_at, decided_at, expires_at, consumed_at, tool_fingerprint,
  policy_version, grant_expires_at`;

/** A statement read as is by SQLite, and with PostgreSQL's row lock. */
function locking(text: string): SqlStatement {
  return sqlOf({ sqlite: text, postgres: `${text} FOR UPDATE` });
}

/** The approval of a run's tool call, locked for the decision. */
export const lockApprovalOfCall = locking(`SELECT ${columns} FROM approvals WHERE run_id = $1 AND tool_call_id = $2`);
/** An approval by id, locked for a person's decision. */
export const lockApproval = locking(`SELECT ${columns} FROM approvals WHERE approval_id = $1`);
/** An approval by id. */
export const selectApproval = sql(`SELECT ${columns} FROM approvals WHERE approval_id = $1`);

/**
 * A new pending approval, the values in the order of `pendingApprovalValues`;
 * nothing when the call has one already (a concurrent decide's, committed
 * while this one waited on the unique key).
 */
export const insertPendingApproval = sql(
  `INSERT INTO approvals (approval_id, run_id, session_id, step, tool_call_id, tool, arguments, arguments_hash, rule,
     reason, status, created_at, expires_at, tool_fingerprint, policy_version)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
   ON CONFLICT (run_id, tool_call_id) DO NOTHING`,
);
/** A person's decision on a pending approval: the approval as it now is. */
export const decideApproval = sql(
  `UPDATE approvals SET status = $1, approver = $2, decision_reason = $3, decided_at = $4, grant_expires_at = $5
   WHERE approval_id = $6 AND status = 'pending'
   RETURNING ${columns}`,
);
/** The one use of a grant: changes nothing when another run already took it. */
export const consumeApproval = sql(
  'UPDATE approvals SET consumed_at = $1 WHERE approval_id = $2 AND consumed_at IS NULL',
);
/** A grant voided before it was used (`$1`: `grant_expired` or `policy_changed`). */
export const voidGrant = sql(
  `UPDATE approvals SET status = 'denied', decision_reason = $1
   WHERE approval_id = $2 AND status = 'approved' AND consumed_at IS NULL`,
);
/** A pending approval past its time, denied as timed out. */
export const expireApproval = sql(
  `UPDATE approvals SET status = 'denied', decision_reason = 'timed out', decided_at = $1
   WHERE approval_id = $2 AND status = 'pending'`,
);
/** How many approvals of a run wait for a person. */
export const countPendingApprovals = sql(
  "SELECT COUNT(*) AS pending FROM approvals WHERE run_id = $1 AND status = 'pending'",
);

/** What `listApprovals` may filter on. */
export interface ApprovalFilter {
  readonly status?: ApprovalStatus;
  readonly runId?: string;
  readonly sessionId?: string;
}

const listings = new Map<string, SqlStatement>();

/**
 * The approvals a filter selects, oldest first, and the values it binds:
 * one statement per shape of filter.
 *
 * @example
 * const { statement, values } = listApprovals({ status: 'pending' });
 */
export function listApprovals({ status, runId, sessionId }: ApprovalFilter): {
  statement: SqlStatement;
  values: string[];
} {
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
  let statement = listings.get(where);
  if (statement === undefined) {
    const select = `SELECT ${columns} FROM approvals ${where} ORDER BY created_at`;
    statement = sqlOf({ sqlite: `${select}, rowid`, postgres: `${select}, position` });
    listings.set(where, statement);
  }
  return { statement, values };
}
