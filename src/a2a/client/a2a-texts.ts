import type { Locale } from '../../core/locale.js';

/**
 * The model-facing sentences of the A2A client, for a remote task that did
 * not complete. `detail` is what the agent said (a trusted agent's only,
 * cut short); `approvals` the ids of approvals an arbiter agent waits for;
 * `taskId` the remote task's id, absent when it is not a plain id.
 */
export interface A2aTexts {
  /** input-required, the agent asking for more. */
  inputRequired(request: { agent: string; taskId?: string; detail?: string }): string;
  /** input-required because a person must approve on the agent's side. */
  awaitingApproval(request: { agent: string; taskId?: string; approvals: readonly string[]; detail?: string }): string;
  /** auth-required. */
  authRequired(request: { agent: string; taskId?: string }): string;
  failed(request: { agent: string; taskId?: string; detail?: string }): string;
  rejected(request: { agent: string; taskId?: string; detail?: string }): string;
  canceled(request: { agent: string; taskId?: string }): string;
  /** The agent answered without any text. */
  emptyAnswer(request: { agent: string }): string;
}

const english: A2aTexts = {
  inputRequired: ({ agent, taskId, detail }) =>
    `The agent "${agent}" needs more information before it can go on${task(taskId)}${said(detail)}. Call it again with a message that gives everything it needs, or ask the user.`,
  awaitingApproval: ({ agent, taskId, approvals, detail }) =>
    `The agent "${agent}" took the request, and on its side it now waits for a person's approval${task(taskId, approvals.length === 0 ? [] : [`approval ${approvals.join(', ')}`])}${said(detail)}. Tell the user it is pending there; once a person there has decided, the user may ask again, and the same request then returns its outcome.`,
  authRequired: ({ agent, taskId }) =>
    `The agent "${agent}" wants credentials this server does not have${task(taskId)}. Tell the user it is not available now.`,
  failed: ({ agent, taskId, detail }) =>
    `The agent "${agent}" could not complete the request${task(taskId)}${said(detail)}. Tell the user; do not send it again.`,
  rejected: ({ agent, taskId, detail }) =>
    `The agent "${agent}" declined the request${task(taskId)}${said(detail)}. Tell the user.`,
  canceled: ({ agent, taskId }) =>
    `The request to the agent "${agent}" was canceled before it was done${task(taskId)}. Tell the user.`,
  emptyAnswer: ({ agent }) => `The agent "${agent}" finished without an answer.`,
};

const chinese: A2aTexts = {
  inputRequired: ({ agent, taskId, detail }) =>
    `智能体「${agent}」需要更多信息才能继续${taskZh(taskId)}${saidZh(detail)}。请再次调用并在消息中提供它需要的全部信息，或询问用户。`,
  awaitingApproval: ({ agent, taskId, approvals, detail }) =>
    `智能体「${agent}」已接受请求，正在其一方等待人工审批${taskZh(taskId, approvals.length === 0 ? [] : [`审批 ${approvals.join('、')}`])}${saidZh(detail)}。请告诉用户该请求正在对方等待审批；对方审批决定后，用户可以再次询问，同样的请求将返回结果。`,
  authRequired: ({ agent, taskId }) =>
    `智能体「${agent}」需要本服务器没有的凭据${taskZh(taskId)}。请告诉用户该功能暂不可用。`,
  failed: ({ agent, taskId, detail }) =>
    `智能体「${agent}」未能完成请求${taskZh(taskId)}${saidZh(detail)}。请告诉用户，不要再次发送。`,
  rejected: ({ agent, taskId, detail }) =>
    `智能体「${agent}」拒绝了该请求${taskZh(taskId)}${saidZh(detail)}。请告诉用户。`,
  canceled: ({ agent, taskId }) => `发给智能体「${agent}」的请求在完成前已被取消${taskZh(taskId)}。请告诉用户。`,
  emptyAnswer: ({ agent }) => `智能体「${agent}」已完成，但没有给出回答。`,
};

/**
 * The A2A client's model-facing texts in a language.
 *
 * @example
 * a2aTexts('en').canceled({ agent: 'billing', taskId: 't-1' });
 */
export function a2aTexts(locale: Locale): A2aTexts {
  return locale === 'zh-CN' ? chinese : english;
}

/** ` (task ID, more)`, or nothing when there is neither an id nor more to say. */
function task(taskId: string | undefined, more: readonly string[] = []): string {
  const parts = [...(taskId === undefined ? [] : [`task ${taskId}`]), ...more];
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

function taskZh(taskId: string | undefined, more: readonly string[] = []): string {
  const parts = [...(taskId === undefined ? [] : [`任务 ${taskId}`]), ...more];
  return parts.length === 0 ? '' : `（${parts.join('，')}）`;
}

function said(detail: string | undefined): string {
  return detail === undefined || detail === '' ? '' : `; it says: "${detail}"`;
}

function saidZh(detail: string | undefined): string {
  return detail === undefined || detail === '' ? '' : `；对方说明：「${detail}」`;
}
