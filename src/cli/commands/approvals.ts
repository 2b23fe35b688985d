import type { ApprovalRecord, ApprovalStatus } from '../../gate/approval-record.js';
import type { CommandResult } from '../cli-output.js';
import { noStoreMessage, withBackend } from './open-data-store.js';
import { storeLocation } from './store-location.js';

/**
 * `arbiter approvals [--all] [--json] [--data-dir DIR | --store URL]`: lists the approvals
 * waiting for a person (all of them with `all`), oldest first, one line each
 * with the id to pass to `arbiter approve`. Exit 0; 2 when there is no store.
 *
 * @example
 * const result = await approvalsCommand({ dataDirectory: '.arbiter' });
 */
export async function approvalsCommand({
  dataDirectory = '.arbiter',
  store,
  environment = process.env,
  all = false,
  json = false,
}: {
  dataDirectory?: string;
  /** A PostgreSQL connection string (`--store`); else `ARBITER_STORE_URL`, else the SQLite file in `dataDirectory`. */
  store?: string | undefined;
  /** Where `ARBITER_STORE_URL` is read. Default `process.env`. */
  environment?: Readonly<Record<string, string | undefined>>;
  all?: boolean;
  json?: boolean;
}): Promise<CommandResult> {
  const location = storeLocation({ values: { 'data-dir': dataDirectory, store }, environment });
  return withBackend({
    location,
    work: async (backend): Promise<CommandResult> => {
      if (backend === undefined) return { exitCode: 2, stdout: [], stderr: [noStoreMessage(location)] };
      const filter: { status?: ApprovalStatus } = all ? {} : { status: 'pending' };
      const approvals = await backend.approvals.listApprovals(filter);
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
