import {
  type ApprovalRecord,
  type ApprovalStatus,
  SqliteApprovalBroker,
} from '../../store/sqlite/sqlite-approval-broker.js';
import type { CommandResult } from '../cli-output.js';
import { withDataStore } from './open-data-store.js';

/**
 * `arbiter approvals [--all] [--json] [--data-dir DIR]`: lists the approvals
 * waiting for a person (all of them with `all`), oldest first, one line each
 * with the id to pass to `arbiter approve`. Exit 0; 2 when there is no store.
 *
 * @example
 * const result = await approvalsCommand({ dataDirectory: '.arbiter' });
 */
export async function approvalsCommand({
  dataDirectory = '.arbiter',
  all = false,
  json = false,
}: {
  dataDirectory?: string;
  all?: boolean;
  json?: boolean;
}): Promise<CommandResult> {
  return withDataStore({
    dataDirectory,
    work: (store, path): CommandResult => {
      if (store === undefined) return { exitCode: 2, stdout: [], stderr: [`no arbiter store at ${path}`] };
      const filter: { status?: ApprovalStatus } = all ? {} : { status: 'pending' };
      const approvals = new SqliteApprovalBroker({ database: store.database }).listApprovals(filter);
      if (json) return { exitCode: 0, stdout: approvals.map((approval) => JSON.stringify(approval)), stderr: [] };
      if (approvals.length === 0)
        return { exitCode: 0, stdout: [all ? 'no approvals' : 'no pending approvals'], stderr: [] };
      return {
        exitCode: 0,
        stdout: approvals.map((approval) =>
          [
            approval.approvalId,
            approval.status +
              (approval.approver === undefined ? '' : ` by ${approval.approver}`) +
              (approval.status === 'denied' && approval.decisionReason !== undefined
                ? ` (${approval.decisionReason})`
                : ''),
            time(approval.createdAt),
            `${approval.tool} ${JSON.stringify(approval.arguments)}`,
            `(${approval.rule}: ${approval.reason})`,
            expiry(approval),
            ...(approval.policyVersion === undefined ? [] : [`policy ${approval.policyVersion}`]),
          ]
            .filter((part) => part !== '')
            .join('  '),
        ),
        stderr: [],
      };
    },
  });
}

const time = (at: number) => new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** When the approval lapses: a pending one unless decided, an approval given unless used. */
function expiry(approval: ApprovalRecord): string {
  if (approval.status === 'pending') return `expires ${time(approval.expiresAt)}`;
  if (approval.status === 'approved' && approval.consumedAt === undefined && approval.grantExpiresAt !== undefined) {
    return `grant expires ${time(approval.grantExpiresAt)}`;
  }
  return '';
}
