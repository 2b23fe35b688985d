import type { Locale } from '../core/locale.js';
import type { ApprovalDeniedCode } from './approval-broker.js';

/** The sentences the gate writes: for the model (refusals) and for the approver (reasons). */
export interface GateTexts {
  /** Why an irreversible tool without its own rule waits for a person. */
  irreversibleDefault(request: { tool: string }): string;
  /** Why a call was not run when no approval came. */
  approvalDenied(request: { code: ApprovalDeniedCode }): string;
  /** What the model reads when a person rejected the call. */
  rejected(request: { reason: string }): string;
  /** What the model reads when the tool's own approval rule failed. */
  ruleFailed(): string;
  /** What the model reads when another user of the tenant already made this very call (a tenant-wide key). */
  claimedByAnotherUser(): string;
  /** The model's tool message for a refused call: the code, why, and not to try again. */
  refused(request: { tool: string; code: string; message: string }): string;
  /** What the model reads when an earlier attempt of exactly this call may have run and left no result. */
  outcomeUnknown(request: { tool: string }): string;
  /**
   * What the model reads, as `already_done` before the earlier result's
   * fields, when exactly this call (its idempotency key) ran before and was
   * not run again.
   */
  alreadyRan(request: { tool: string }): string;
  /** Why an egress call waits for a person: the conversation holds content from these untrusted sources. */
  egressAfterUntrusted(request: { tool: string; sources: readonly string[] }): string;
}

const english: GateTexts = {
  irreversibleDefault: ({ tool }) => `${tool} cannot be undone, so a person must approve each call.`,
  approvalDenied: ({ code }) =>
    ({
      approval_denied: 'This call needs a person’s approval and it was not given.',
      no_approver: 'This call needs a person’s approval and nobody can approve it here.',
      approval_timed_out: 'This call needed a person’s approval and nobody approved it in time.',
      approver_failed: 'This call needed a person’s approval and the approval could not be obtained.',
      approval_used: 'The approval for this call was already used once; an approval is good for one execution.',
      arguments_changed: 'The approval given does not cover these arguments; an approval is bound to the exact call.',
      tool_changed:
        'The tool was changed by its provider after a person was asked to approve this call, so the approval no longer applies and the call was not run; a person must look at the changed tool again.',
      approval_aborted: 'The conversation was cancelled while this call waited for approval.',
      grant_expired:
        'A person approved this call, but the approval expired before the call could run, so it was not run; a person must approve it again.',
      policy_changed:
        'The rules for this call changed after a person approved it, so the approval no longer applies and the call was not run; it needs a new decision under the current rules.',
    })[code],
  rejected: ({ reason }) =>
    reason.trim() === ''
      ? 'A person reviewed this call and rejected it.'
      : `A person reviewed this call and rejected it: ${reason.trim().replace(/[.。]$/, '')}.`,
  ruleFailed: () => 'The rule that decides whether this call may run could not be evaluated, so it was not run.',
  claimedByAnotherUser: () =>
    'Someone else already made exactly this request, so it was not made again; its result is theirs and is not shown here. Look up the current state instead of repeating it.',
  refused: ({ tool, code, message }) =>
    `Refused (${code}): ${message} Do not call ${tool} again for this; tell the user what happened.`,
  outcomeUnknown: ({ tool }) =>
    `Not run: an earlier attempt of exactly this ${tool} call was interrupted and its outcome is unknown. It will not be repeated automatically; tell the user a person will check it.`,
  alreadyRan: ({ tool }) =>
    `Exactly this ${tool} call already ran before, so it was not run again; the other fields are what it answered then. Tell the user it was already done earlier; do not say it is being done now.`,
  egressAfterUntrusted: ({ tool, sources }) =>
    `This conversation contains content from ${sources.join(', ')}, which may carry instructions that are not the user's. ${tool} sends data outside, so a person must approve it.`,
};

const chinese: GateTexts = {
  irreversibleDefault: ({ tool }) => `${tool} 不可撤销，每次调用都需要人工确认。`,
  approvalDenied: ({ code }) =>
    ({
      approval_denied: '这次调用需要人工确认，但未获确认。',
      no_approver: '这次调用需要人工确认，但这里没有人可以确认。',
      approval_timed_out: '这次调用需要人工确认，但没有人在时限内确认。',
      approver_failed: '这次调用需要人工确认，但未能取得确认结果。',
      approval_used: '这次调用的确认已经用过一次；一次确认只对应一次执行。',
      arguments_changed: '已有的确认不覆盖这组参数；确认只对应完全相同的调用。',
      tool_changed:
        '在请人确认这次调用之后，该工具已被其提供方修改，原有确认不再有效，调用未执行；需要有人重新审查修改后的工具。',
      approval_aborted: '等待确认期间本轮对话已被取消。',
      grant_expired: '这次调用已获人工确认，但在执行之前确认已过期，调用未执行；需要重新请人确认。',
      policy_changed:
        '人工确认之后，这次调用所适用的规则已经变更，原有确认不再有效，调用未执行；需要按现行规则重新决定。',
    })[code],
  rejected: ({ reason }) =>
    reason.trim() === ''
      ? '审批人审核后拒绝了这次调用。'
      : `审批人审核后拒绝了这次调用：${reason.trim().replace(/[.。]$/, '')}。`,
  ruleFailed: () => '判断这次调用能否执行的规则出错，调用未执行。',
  claimedByAnotherUser: () =>
    '其他人已经提交过完全相同的请求，因此没有重复执行；其结果属于对方，不在此显示。请查询当前状态，不要重复提交。',
  refused: ({ tool, code, message }) =>
    `已拒绝（${code}）：${message} 不要为此再次调用 ${tool}，请把情况如实告诉用户。`,
  outcomeUnknown: ({ tool }) =>
    `未执行：之前一次完全相同的 ${tool} 调用中途中断，结果未知。系统不会自动重做；请告诉用户会有人工核实。`,
  alreadyRan: ({ tool }) =>
    `完全相同的 ${tool} 调用之前已经执行过，所以这次没有再次执行；其余字段是它当时的结果。请告诉用户这件事之前已经办好，不要说现在正在办理。`,
  egressAfterUntrusted: ({ tool, sources }) =>
    `本次对话包含来自 ${sources.join('、')} 的内容，其中可能夹带并非用户本人的指令。${tool} 会把数据发送到外部，因此需要人工确认。`,
};

/**
 * The gate's texts in a locale.
 *
 * @example
 * gateTexts('zh-CN').approvalDenied({ code: 'approval_timed_out' });
 */
export function gateTexts(locale: Locale): GateTexts {
  return locale === 'zh-CN' ? chinese : english;
}
