import type { Locale } from '../../../core/locale.js';

/** What arbiter tells an A2A caller about its task, in the run's language. */
export interface A2aServerTexts {
  /** A call waits for a person: the approval's id, the tool and the rule's reason. */
  awaitingApproval(options: { approvalId: string; tool: string; reason: string }): string;
  /** The run stopped for another reason than an answer (a brake, a budget). */
  stopped(stopReason: string): string;
  readonly failed: string;
  readonly canceled: string;
  /** A message with no text part. */
  readonly noText: string;
}

/** `text` as one sentence ending in `stop`: a rule's reason may end with its own full stop, or none. */
function sentence(text: string, stop: '.' | '。'): string {
  const trimmed = text.trim();
  return /[.!?。！？]$/u.test(trimmed) ? trimmed : `${trimmed}${stop}`;
}

const en: A2aServerTexts = {
  awaitingApproval: ({ approvalId, tool, reason }) =>
    `${tool} waits for a person's approval (approval ${approvalId}): ${sentence(reason, '.')} The task continues once it is decided.`,
  stopped: (stopReason) => `The task stopped without an answer (${stopReason}); a person should take over.`,
  failed: 'The task failed; the error was logged on the server.',
  canceled: 'The task was canceled.',
  noText: 'the message has no text part; send the request as text',
};

const zhCn: A2aServerTexts = {
  awaitingApproval: ({ approvalId, tool, reason }) =>
    `${tool} 需要人工审批（审批 ${approvalId}）：${sentence(reason, '。')}审批决定后任务会继续。`,
  stopped: (stopReason) => `任务未给出答复就停止了（${stopReason}）；请转人工处理。`,
  failed: '任务失败；错误已记录在服务器上。',
  canceled: '任务已取消。',
  noText: '消息中没有文本部分；请以文本发送请求',
};

/**
 * The A2A server's texts in `locale`.
 *
 * @example
 * a2aServerTexts('zh-CN').canceled; // '任务已取消。'
 */
export function a2aServerTexts(locale: Locale): A2aServerTexts {
  return locale === 'zh-CN' ? zhCn : en;
}
