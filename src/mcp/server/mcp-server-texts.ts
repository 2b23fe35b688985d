import type { Locale } from '../../core/locale.js';

/** What an MCP caller (a model, through its client) reads when arbiter did not run its call. */
export interface McpServerTexts {
  /** A call held for a person: not run, which approval decides it, how, and what to do after. */
  awaitingApproval(request: { tool: string; approvalId: string; reason: string | undefined }): string;
  /** Too many calls per minute for this principal. */
  tooManyCalls(request: { retryAfterSeconds: number }): string;
  /** The run was stopped (the client went away) before the tool ran, or while it ran. */
  aborted(request: { tool: string; started: boolean }): string;
  /** A tool failed in a way only the operator can fix; the details are in the server's log. */
  failedOnServer(request: { tool: string }): string;
  /** The form a person at the MCP client decides a held call with (elicitation). */
  approvalForm(request: { tool: string; approvalId: string; argumentsJson: string; reason: string }): string;
  decisionTitle(): string;
  reasonTitle(): string;
}

const english: McpServerTexts = {
  awaitingApproval: ({ tool, approvalId, reason }) =>
    `${tool} was NOT executed: it awaits a person's approval (approval ${approvalId})` +
    `${reason === undefined ? '' : `: ${reason.replace(/[.。]$/, '')}`}. ` +
    `Someone with the approver role of your organisation decides it (POST /v1/approvals/${approvalId} on the arbiter server, ` +
    `or \`arbiter approve ${approvalId}\`). Once it is approved, make exactly the same call again and it runs once; ` +
    'a call with other arguments needs its own approval. Tell the user it is waiting for approval.',
  tooManyCalls: ({ retryAfterSeconds }) =>
    `Too many tool calls for this user right now; nothing was run. Try again in ${retryAfterSeconds} seconds.`,
  aborted: ({ tool, started }) =>
    started
      ? `${tool} was stopped while it ran; it may or may not have taken effect. Check the current state before repeating it.`
      : `${tool} was not run: the request was cancelled.`,
  failedOnServer: ({ tool }) =>
    `${tool} failed on the server; it may or may not have taken effect. The failure was logged for the operator: do not repeat the call, tell the user.`,
  approvalForm: ({ tool, approvalId, argumentsJson, reason }) =>
    `Approve ${tool} ${argumentsJson}? ${reason} (approval ${approvalId}; nothing runs unless you approve.)`,
  decisionTitle: () => 'Approve or reject this call',
  reasonTitle: () => 'Reason (optional)',
};

const chinese: McpServerTexts = {
  awaitingApproval: ({ tool, approvalId, reason }) =>
    `${tool} 尚未执行：它需要人工确认（确认单 ${approvalId}）` +
    `${reason === undefined ? '' : `：${reason.replace(/[.。]$/, '')}`}。` +
    `由你所在组织中有审批权限的人处理（在 arbiter 服务上 POST /v1/approvals/${approvalId}，或运行 \`arbiter approve ${approvalId}\`）。` +
    '确认之后，再发起完全相同的调用，它只会执行一次；参数不同的调用需要另行确认。请告诉用户这一操作正在等待确认。',
  tooManyCalls: ({ retryAfterSeconds }) =>
    `该用户的工具调用过于频繁，本次没有执行任何操作。请在 ${retryAfterSeconds} 秒后重试。`,
  aborted: ({ tool, started }) =>
    started
      ? `${tool} 在执行中被中止，可能已经生效，也可能没有。重复之前请先查询当前状态。`
      : `${tool} 没有执行：请求已取消。`,
  failedOnServer: ({ tool }) =>
    `${tool} 在服务端出错，可能已经生效，也可能没有。错误已记录给运维人员：请不要重复调用，并告知用户。`,
  approvalForm: ({ tool, approvalId, argumentsJson, reason }) =>
    `是否批准 ${tool} ${argumentsJson}？${reason}（确认单 ${approvalId}；不批准就不会执行。）`,
  decisionTitle: () => '批准或拒绝这次调用',
  reasonTitle: () => '理由（可不填）',
};

/**
 * The MCP server's sentences in a language.
 *
 * @example
 * mcpServerTexts('zh-CN').awaitingApproval({ tool: 'refund_order', approvalId: 'ap_1', reason: undefined });
 */
export function mcpServerTexts(locale: Locale): McpServerTexts {
  return locale === 'zh-CN' ? chinese : english;
}
