import { SqlApprovalStore } from '../approvals/sql-approval-store.js';
import { PostgresPort } from '../sql/postgres-port.js';
import type { PostgresDatabase } from './postgres-database.js';

/**
 * Approvals in PostgreSQL (`SqlApprovalStore` on a `PostgresPort`), with
 * the behaviour of `SqliteApprovalBroker`: a person decides from any node,
 * and each decision is one transaction holding the approval's row lock, so
 * two nodes deciding the same call at once see one record, and only one of
 * them consumes it. Who may decide (four eyes) is enforced above the
 * broker, as for SQLite.
 *
 * @example
 * const { approvals } = await openPostgresBackend({ connectionString });
 * await runSession({ sessions, sessionId, userMessage, model, tools, gate, approvals });
 * // later, on any node:
 * await approvals.resolveApproval({ approvalId, decision: 'approve', approver: 'li.wei' });
 */
export class PostgresApprovalBroker extends SqlApprovalStore<'async'> {
  constructor({
    database,
    ...options
  }: {
    database: PostgresDatabase;
    /** How long a pending approval waits before it is denied as timed out. Default one day. */
    ttlMs?: number;
    /** How long an approval, once given, may be used before it expires unused. Default one day. */
    grantTtlMs?: number;
    now?: () => number;
    createId?: () => string;
  }) {
    super({ port: new PostgresPort(database), ...options });
  }
}
