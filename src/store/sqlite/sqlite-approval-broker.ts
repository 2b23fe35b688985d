import type Database from 'better-sqlite3';
import { SqlApprovalStore } from '../approvals/sql-approval-store.js';
import { SqlitePort } from '../sql/sqlite-port.js';

export type { ApprovalRecord, ApprovalStatus } from '../../gate/approval-record.js';

/**
 * Approvals that survive a restart, in SQLite (`SqlApprovalStore` on a
 * `SqlitePort`): every method but `decide` answers synchronously. The
 * first time a call needs one, a pending record is written (the run stops
 * with `awaiting_approval`); a person decides with `resolveApproval`,
 * possibly in another process; when the run is resumed, `decide` returns
 * that decision, under the gate's rules (`approval-rules.ts`).
 *
 * @example
 * const broker = new SqliteApprovalBroker({ database: store.database });
 * await runSession({ sessions, sessionId, userMessage, model, tools, gate, approvals: broker });
 * // later, anywhere:
 * broker.resolveApproval({ approvalId, decision: 'approve', approver: 'li.wei' });
 */
export class SqliteApprovalBroker extends SqlApprovalStore<'sync'> {
  constructor({
    database,
    ...options
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
    super({ port: new SqlitePort(database), ...options });
  }
}
