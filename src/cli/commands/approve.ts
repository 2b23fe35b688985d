import { userInfo } from 'node:os';
import { ApprovalResolutionError } from '../../gate/approval-resolution-error.js';
import { type ApprovalRecord, SqliteApprovalBroker } from '../../gate/sqlite-approval-broker.js';
import type { CommandResult } from '../cli-output.js';
import { withDataStore } from './open-data-store.js';

/** Continues a suspended run once all its approvals are decided; returns the lines to print. */
export type ResumeSuspendedRun = (target: {
  readonly sessionId: string;
  readonly runId: string;
}) => Promise<{ readonly stdout: readonly string[]; readonly failed?: boolean }>;

/**
 * `arbiter approve ID [--reject] [--reason TEXT] [--by NAME] [--data-dir DIR]`:
 * records a person's decision on a pending approval in the store. When no
 * other approval of that run is still pending and `resume` is given (the
 * application's way to continue its runs, e.g. the shop demo's), the run
 * goes on right away; otherwise it says how many approvals remain. Exit 0
 * recorded, 1 the approval is unknown, already decided or expired, 2 no store.
 *
 * @example
 * await approveCommand({ approvalId: 'ap_3f2c9a1b7d4e', decision: 'reject', reason: 'Ask for a photo first' });
 */
export async function approveCommand({
  approvalId,
  decision = 'approve',
  approver = userInfo().username,
  reason,
  dataDirectory = '.arbiter',
  resume,
}: {
  approvalId: string;
  decision?: 'approve' | 'reject';
  approver?: string;
  reason?: string;
  dataDirectory?: string;
  resume?: ResumeSuspendedRun;
}): Promise<CommandResult> {
  const recorded = await withDataStore({
    dataDirectory,
    work: (store, path): { record: ApprovalRecord; pending: number } | CommandResult => {
      if (store === undefined) return { exitCode: 2, stdout: [], stderr: [`no arbiter store at ${path}`] };
      const broker = new SqliteApprovalBroker({ database: store.database });
      try {
        const record = broker.resolveApproval({
          approvalId,
          decision,
          approver,
          ...(reason === undefined ? {} : { reason }),
        });
        return { record, pending: broker.countPending({ runId: record.runId }) };
      } catch (error) {
        if (ApprovalResolutionError.isInstance(error)) return { exitCode: 1, stdout: [], stderr: [error.message] };
        throw error;
      }
    },
  });
  if ('exitCode' in recorded) return recorded;
  const { record, pending } = recorded;
  const stdout = [
    `${record.status} ${record.approvalId} by ${record.approver ?? approver}: ${record.tool} ${JSON.stringify(record.arguments)}`,
  ];
  if (pending > 0) {
    stdout.push(`run ${record.runId} is still waiting for ${pending} ${pending === 1 ? 'approval' : 'approvals'}`);
    return { exitCode: 0, stdout, stderr: [] };
  }
  if (resume === undefined || record.sessionId === undefined) {
    stdout.push(
      `every approval of run ${record.runId} is decided; resume session ${record.sessionId ?? '-'} to continue`,
    );
    return { exitCode: 0, stdout, stderr: [] };
  }
  const resumed = await resume({ sessionId: record.sessionId, runId: record.runId });
  return { exitCode: resumed.failed === true ? 1 : 0, stdout: [...stdout, ...resumed.stdout], stderr: [] };
}
