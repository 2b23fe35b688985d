import { userInfo } from 'node:os';
import type { Locale } from '../../core/locale.js';
import { ApprovalResolutionError } from '../../errors/approval-resolution-error.js';
import type { ApprovalRecord } from '../../gate/approval-record.js';
import { isMcpRunId } from '../../mcp/server/mcp-run.js';
import type { CommandResult } from '../cli-output.js';
import { noStoreMessage, withBackend } from './open-data-store.js';
import { storeLocation } from './store-location.js';

/** Continues a suspended run once all its approvals are decided; returns the lines to print. */
export type ResumeSuspendedRun = (target: {
  readonly sessionId: string;
  readonly runId: string;
}) => Promise<{ readonly stdout: readonly string[]; readonly failed?: boolean }>;

/** What `approve` says about the decision it recorded, in each language. */
const texts: Record<
  Locale,
  {
    decided(record: ApprovalRecord, approver: string): string;
    stillWaiting(runId: string, pending: number): string;
    allDecided(runId: string, sessionId: string): string;
    /** An MCP caller's approval: nothing resumes, the client repeats its call. */
    mcpDecided(record: ApprovalRecord): string;
  }
> = {
  en: {
    decided: (record, approver) =>
      `${record.status} ${record.approvalId} by ${approver}: ${record.tool} ${JSON.stringify(record.arguments)}`,
    stillWaiting: (runId, pending) =>
      `run ${runId} is still waiting for ${pending} ${pending === 1 ? 'approval' : 'approvals'}`,
    allDecided: (runId, sessionId) =>
      `every approval of run ${runId} is decided; resume session ${sessionId} to continue`,
    mcpDecided: (record) =>
      record.status === 'approved'
        ? `an MCP client asked for this call: when it repeats exactly the same ${record.tool} call, it runs once`
        : `an MCP client asked for this call: repeated, it is answered with the rejection`,
  },
  'zh-CN': {
    decided: (record, approver) =>
      `${approver} ${record.status === 'approved' ? '已确认' : record.status === 'rejected' ? '已拒绝' : record.status} ${record.approvalId}：${record.tool} ${JSON.stringify(record.arguments)}`,
    stillWaiting: (runId, pending) => `本轮 ${runId} 还在等待 ${pending} 个确认`,
    allDecided: (runId, sessionId) => `本轮 ${runId} 的确认都已处理；继续会话 ${sessionId} 即可接着运行`,
    mcpDecided: (record) =>
      record.status === 'approved'
        ? `这是 MCP 客户端发起的调用：它再次发起完全相同的 ${record.tool} 调用时，会执行一次`
        : `这是 MCP 客户端发起的调用：再次发起时，会收到拒绝的答复`,
  },
};

/**
 * `arbiter approve ID [--reject] [--reason TEXT] [--by NAME] [--lang en|zh-CN] [--tools MODULE] [--data-dir DIR | --store URL]`:
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
  store,
  environment = process.env,
  locale,
  resume,
}: {
  approvalId: string;
  decision?: 'approve' | 'reject';
  approver?: string;
  reason?: string;
  dataDirectory?: string;
  /** A PostgreSQL connection string (`--store`); else `ARBITER_STORE_URL`, else the SQLite file in `dataDirectory`. */
  store?: string | undefined;
  /** Where `ARBITER_STORE_URL` is read. Default `process.env`. */
  environment?: Readonly<Record<string, string | undefined>>;
  /** The language of the lines it prints. Default: the language of the session the approval belongs to (else English). */
  locale?: Locale;
  resume?: ResumeSuspendedRun;
}): Promise<CommandResult> {
  const location = storeLocation({ values: { 'data-dir': dataDirectory, store }, environment });
  const recorded = await withBackend({
    location,
    work: async (backend): Promise<{ record: ApprovalRecord; pending: number; locale: Locale } | CommandResult> => {
      if (backend === undefined) return { exitCode: 2, stdout: [], stderr: [noStoreMessage(location)] };
      try {
        const record = await backend.approvals.resolveApproval({
          approvalId,
          decision,
          approver,
          ...(reason === undefined ? {} : { reason }),
        });
        const session =
          locale === undefined && record.sessionId !== undefined
            ? await backend.sessions.load(record.sessionId)
            : undefined;
        return {
          record,
          pending: await backend.approvals.countPending({ runId: record.runId }),
          locale: locale ?? session?.locale ?? 'en',
        };
      } catch (error) {
        if (ApprovalResolutionError.isInstance(error)) return { exitCode: 1, stdout: [], stderr: [error.message] };
        throw error;
      }
    },
  });
  if ('exitCode' in recorded) return recorded;
  const { record, pending } = recorded;
  const say = texts[recorded.locale];
  const stdout = [say.decided(record, record.approver ?? approver)];
  if (isMcpRunId(record.runId)) return { exitCode: 0, stdout: [...stdout, say.mcpDecided(record)], stderr: [] };
  if (pending > 0) {
    stdout.push(say.stillWaiting(record.runId, pending));
    return { exitCode: 0, stdout, stderr: [] };
  }
  if (resume === undefined || record.sessionId === undefined) {
    stdout.push(say.allDecided(record.runId, record.sessionId ?? '-'));
    return { exitCode: 0, stdout, stderr: [] };
  }
  const resumed = await resume({ sessionId: record.sessionId, runId: record.runId });
  return { exitCode: resumed.failed === true ? 1 : 0, stdout: [...stdout, ...resumed.stdout], stderr: [] };
}
