import type { Locale } from '../../core/locale.js';
import { ApprovalResolutionError } from '../../errors/approval-resolution-error.js';
import type { ApprovalRecord } from '../../gate/approval-record.js';
import { isOwnRequest, selfApprovalRefusal } from '../../gate/four-eyes.js';
import { isMcpRunId } from '../../mcp/server/mcp-run.js';
import type { Backend } from '../../store/backend.js';
import type { ToolSet } from '../../tools/tool-registry.js';
import type { CommandResult } from '../cli-output.js';
import {
  approverName,
  type CommandLineOrigin,
  commandLineApprover,
  commandLineOrigin,
} from './command-line-approver.js';
import { noStoreMessage, serverRunOf, withBackend } from './open-data-store.js';
import { storeLocation } from './store-location.js';
import type { OpenedTools } from './undo.js';

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
    /** Four eyes: the approver named by --by asked for this call himself. */
    ownRequest(approvalId: string, name: string): string;
    /** --tools has no tool of that name. */
    toolMissing(record: ApprovalRecord): string;
    /** --tools defines the tool otherwise than the definition the call was held under. */
    toolChanged(record: ApprovalRecord, now: string | undefined): string;
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
    ownRequest: (approvalId, name) =>
      `approval ${approvalId} was requested by ${name}; under the four-eyes rule another approver of the tenant must decide it (refused, and audited)`,
    toolMissing: (record) =>
      `approval ${record.approvalId} is for ${record.tool}, which the tools of --tools do not define: approving it would grant a call nothing here can check; reject it, or name the module that defines it`,
    toolChanged: (record, now) =>
      `approval ${record.approvalId} is for ${record.tool} as defined when the call was held (fingerprint ${record.toolFingerprint ?? 'none'}); --tools defines it otherwise now (${now ?? 'none'}): reject it and let the model ask again under the new definition`,
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
    ownRequest: (approvalId, name) =>
      `确认 ${approvalId} 是 ${name} 本人发起的；按四眼原则，须由同一租户的另一位审批人处理（已拒绝，并记入审计）`,
    toolMissing: (record) =>
      `确认 ${record.approvalId} 针对的是 ${record.tool}，而 --tools 中没有这个工具：确认它等于放行一个这里无法核对的调用；请拒绝，或指定定义它的模块`,
    toolChanged: (record, now) =>
      `确认 ${record.approvalId} 针对的是调用挂起时定义的 ${record.tool}（指纹 ${record.toolFingerprint ?? '无'}）；--tools 现在的定义不同（${now ?? '无'}）：请拒绝，让模型按新定义重新发起`,
  },
};

/**
 * `arbiter approve ID [--reject] [--reason TEXT] [--by NAME] [--lang en|zh-CN] [--tools MODULE] [--data-dir DIR | --store URL]`:
 * records a person's decision on a pending approval in the store, under
 * the server's four-eyes rule (`isOwnRequest`): `--by` naming the user who
 * asked for the call (the run's principal or the session's owner, in that
 * tenant) is refused and audited as the server refuses it, the approval
 * left pending. The decision is recorded under `--by` with where it was
 * made beside it (`commandLineApprover`: OS user and host). With `tools`
 * (`--tools MODULE`, loaded), an approval of a tool the module lacks, or
 * defines under another fingerprint than the call was held under, is
 * refused (a rejection is always recorded). When no other approval of that
 * run is still pending and `resume` is given (the application's way to
 * continue its runs, e.g. the shop demo's), the run goes on right away;
 * otherwise it says how many approvals remain. Exit 0 recorded, 1 the
 * approval is unknown, already decided or expired, or refused, 2 no store.
 *
 * @example
 * await approveCommand({ approvalId: 'ap_3f2c9a1b7d4e', decision: 'reject', reason: 'Ask for a photo first' });
 */
export async function approveCommand({
  approvalId,
  decision = 'approve',
  approver,
  origin = commandLineOrigin(),
  reason,
  dataDirectory = '.arbiter',
  store,
  environment = process.env,
  locale,
  tools: openTools,
  resume,
}: {
  approvalId: string;
  decision?: 'approve' | 'reject';
  /** Who decides (`--by`): the name the four-eyes rule compares. Default: the OS user. */
  approver?: string;
  /** Where the command runs, recorded beside the name. Default: this process's OS user and host. */
  origin?: CommandLineOrigin;
  reason?: string;
  dataDirectory?: string;
  /** A PostgreSQL connection string (`--store`); else `ARBITER_STORE_URL`, else the SQLite file in `dataDirectory`. */
  store?: string | undefined;
  /** Where `ARBITER_STORE_URL` is read. Default `process.env`. */
  environment?: Readonly<Record<string, string | undefined>>;
  /** The language of the lines it prints. Default: the language of the session the approval belongs to (else English). */
  locale?: Locale;
  /** The application's tools (`--tools MODULE`), opened once the store is there: the approval's tool is checked against them. */
  tools?: () => OpenedTools | Promise<OpenedTools>;
  resume?: ResumeSuspendedRun;
}): Promise<CommandResult> {
  const name = approverName(approver ?? origin.osUser);
  const recordedApprover = commandLineApprover({ by: name, origin });
  const location = storeLocation({ values: { 'data-dir': dataDirectory, store }, environment });
  const recorded = await withBackend({
    location,
    work: async (backend): Promise<{ record: ApprovalRecord; pending: number; locale: Locale } | CommandResult> => {
      if (backend === undefined) return { exitCode: 2, stdout: [], stderr: [noStoreMessage(location)] };
      const existing = await backend.approvals.getApproval(approvalId);
      const session = existing?.sessionId === undefined ? undefined : await backend.sessions.load(existing.sessionId);
      const say = texts[locale ?? session?.locale ?? 'en'];
      const opened = openTools === undefined ? undefined : await openTools();
      try {
        if (existing !== undefined) {
          const refused = await refusal({
            backend,
            existing,
            name,
            recordedApprover,
            decision,
            tools: opened?.tools,
            say,
          });
          if (refused !== undefined) return { exitCode: 1, stdout: [], stderr: [refused] };
        }
        const record = await backend.approvals.resolveApproval({
          approvalId,
          decision,
          approver: recordedApprover,
          ...(reason === undefined ? {} : { reason }),
        });
        return {
          record,
          pending: await backend.approvals.countPending({ runId: record.runId }),
          locale: locale ?? session?.locale ?? 'en',
        };
      } catch (error) {
        if (ApprovalResolutionError.isInstance(error)) return { exitCode: 1, stdout: [], stderr: [error.message] };
        throw error;
      } finally {
        await opened?.close();
      }
    },
  });
  if ('exitCode' in recorded) return recorded;
  const { record, pending } = recorded;
  const say = texts[recorded.locale];
  const stdout = [say.decided(record, record.approver ?? recordedApprover)];
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

/**
 * Why this decision may not be recorded, or undefined: four eyes first (the
 * server's rule, audited as the server audits it), then, for an approval
 * with the application's tools at hand, a tool they lack or define otherwise.
 */
async function refusal({
  backend,
  existing,
  name,
  recordedApprover,
  decision,
  tools,
  say,
}: {
  backend: Backend;
  existing: ApprovalRecord;
  name: string;
  recordedApprover: string;
  decision: 'approve' | 'reject';
  tools: ToolSet | undefined;
  say: (typeof texts)[Locale];
}): Promise<string | undefined> {
  const run = await serverRunOf({ backend, runId: existing.runId });
  const session = existing.sessionId === undefined ? undefined : await backend.sessions.load(existing.sessionId);
  // The command line decides in the tenant of the request it decides.
  const principal = { tenantId: run?.tenantId ?? session?.tenantId, userId: name };
  if (
    await isOwnRequest({
      principal,
      run: { principal: run?.principal, sessionId: existing.sessionId },
      sessions: backend.sessions,
    })
  ) {
    await backend.audit.append(
      selfApprovalRefusal({
        approval: existing,
        approver: recordedApprover,
        sideEffect: tools?.get(existing.tool)?.definition.sideEffect,
        at: Date.now(),
      }),
    );
    return say.ownRequest(existing.approvalId, name);
  }
  if (tools === undefined || decision === 'reject') return undefined;
  const tool = tools.get(existing.tool);
  if (tool === undefined) return say.toolMissing(existing);
  if (tool.definition.fingerprint !== existing.toolFingerprint)
    return say.toolChanged(existing, tool.definition.fingerprint);
  return undefined;
}
