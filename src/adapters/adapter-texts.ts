import type { Locale } from '../core/locale.js';

/** What a model in another framework's loop reads when arbiter did not run its call. */
export interface AdapterTexts {
  /** The call waits for a person: not run, which approval decides it, and that nobody in the chat can decide it. */
  awaitingApproval(request: { tool: string; approvalId: string; reason: string | undefined }): string;
  /** The run was stopped before the tool ran, or while it ran. */
  aborted(request: { tool: string; started: boolean }): string;
  /** The call id was answered before in this conversation, for another tool or other arguments: nothing runs under it again. */
  callIdReused(request: { tool: string }): string;
  /** The same call (conversation and call id) is being run by another request right now. */
  callRunning(request: { tool: string }): string;
}

const english: AdapterTexts = {
  awaitingApproval: ({ tool, approvalId, reason }) =>
    `${tool} was NOT executed: it awaits the approval of a member of staff (approval ${approvalId})` +
    `${reason === undefined ? '' : `: ${reason.replace(/[.。]$/, '')}`}. ` +
    'An answer given in this chat does not count. Once staff approve it, the same call runs once. ' +
    'Tell the user it is waiting for approval; do not make it again with other arguments.',
  aborted: ({ tool, started }) =>
    started
      ? `${tool} was stopped while it ran; it may or may not have taken effect. Check the current state before repeating it.`
      : `${tool} was not run: the request was cancelled.`,
  callIdReused: ({ tool }) =>
    `Not run: this call id was already used in this conversation for another call (another tool or other arguments), and a call id runs once. Make a new ${tool} call if it is still needed.`,
  callRunning: ({ tool }) =>
    `Not run again: this very ${tool} call is being run by another request right now, and its outcome is not known yet. Do not repeat it; check the current state first.`,
};

const chinese: AdapterTexts = {
  awaitingApproval: ({ tool, approvalId, reason }) =>
    `${tool} 尚未执行：它需要工作人员确认（确认单 ${approvalId}）` +
    `${reason === undefined ? '' : `：${reason.replace(/[.。]$/, '')}`}。` +
    '在本对话中作出的确认不算数。工作人员确认之后，同一调用只会执行一次。' +
    '请告诉用户这一操作正在等待确认，不要换用其他参数重新发起。',
  aborted: ({ tool, started }) =>
    started
      ? `${tool} 在执行中被中止，可能已经生效，也可能没有。重复之前请先查询当前状态。`
      : `${tool} 没有执行：请求已被取消。`,
  callIdReused: ({ tool }) =>
    `未执行：本次对话中，这个调用编号已经用于另一次调用（其他工具或其他参数），而一个调用编号只执行一次。如仍需要，请重新发起 ${tool} 调用。`,
  callRunning: ({ tool }) =>
    `未再次执行：另一个请求正在执行这一完全相同的 ${tool} 调用，结果尚未可知。请不要重复，先查询当前状态。`,
};

/**
 * The adapters' model-facing texts in `locale`.
 *
 * @example
 * adapterTexts('zh-CN').awaitingApproval({ tool: 'apply_refund', approvalId: 'ap_1', reason: undefined });
 */
export function adapterTexts(locale: Locale): AdapterTexts {
  return locale === 'zh-CN' ? chinese : english;
}
