import type { Locale } from '../core/locale.js';
import type { StopReason } from '../core/stop-reason.js';
import { gateTexts } from '../gate/gate-texts.js';

/** The model-facing and user-facing sentences the loop itself writes. */
export interface LoopTexts {
  retryable(request: { tool: string; code: string; message: string }): string;
  refused(request: { tool: string; code: string; message: string }): string;
  repeated(request: { tool: string; times: number }): string;
  skipped(request: { reason: StopReason }): string;
  outcomeUnknown(request: { tool: string }): string;
  timedOut(request: { tool: string; seconds: number }): string;
  interrupted(request: { tool: string }): string;
  vague(): string;
  handoff(): string;
}

const stopReasonEnglish: Record<StopReason, string> = {
  completed: 'the run completed',
  max_steps: 'the step limit was reached',
  token_budget: 'the token budget is spent',
  cost_budget: 'the cost budget is spent',
  deadline: 'the time limit was reached',
  repeated_call: 'a call was repeated too often',
  tool_failures: 'a tool failed repeatedly',
  aborted: 'the run was cancelled',
  awaiting_approval: 'a call is waiting for approval',
  error: 'an internal error occurred',
};

const stopReasonChinese: Record<StopReason, string> = {
  completed: '本轮已完成',
  max_steps: '已达到步数上限',
  token_budget: 'token 预算已用完',
  cost_budget: '费用预算已用完',
  deadline: '已到时间上限',
  repeated_call: '同一调用重复次数过多',
  tool_failures: '工具连续失败',
  aborted: '本轮已被取消',
  awaiting_approval: '有调用在等待人工确认',
  error: '发生内部错误',
};

const english: LoopTexts = {
  retryable: ({ tool, code, message }) =>
    `Error (${code}): ${message} You can correct the arguments and call ${tool} again.`,
  refused: gateTexts('en').refused,
  repeated: ({ tool, times }) =>
    `Not run: you already called ${tool} with exactly these arguments ${times} times and the result will not change. Do not call it again; answer the user from the results you already have.`,
  skipped: ({ reason }) => `Not run: the run stopped before this call (${stopReasonEnglish[reason]}).`,
  outcomeUnknown: gateTexts('en').outcomeUnknown,
  timedOut: ({ tool, seconds }) => `${tool} did not answer within ${seconds} seconds. You can call it again.`,
  interrupted: ({ tool }) =>
    `Not finished: ${tool} failed or did not answer in time, and whether it took effect is unknown. Do not call it again; tell the user a person will check it.`,
  vague: () => 'Tool execution failed',
  handoff: () =>
    "I'm sorry, I couldn't complete this myself. I'm passing your request to a colleague, who will follow up with you.",
};

const chinese: LoopTexts = {
  retryable: ({ tool, code, message }) => `错误（${code}）：${message} 你可以修正参数后重新调用 ${tool}。`,
  refused: gateTexts('zh-CN').refused,
  repeated: ({ tool, times }) =>
    `未执行：你已经用完全相同的参数调用过 ${tool} ${times} 次，结果不会变化。不要再调用它，请根据已有结果回答用户。`,
  skipped: ({ reason }) => `未执行：本轮在这次调用之前已停止（${stopReasonChinese[reason]}）。`,
  outcomeUnknown: gateTexts('zh-CN').outcomeUnknown,
  timedOut: ({ tool, seconds }) => `${tool} 在 ${seconds} 秒内没有响应。你可以重新调用。`,
  interrupted: ({ tool }) => `未完成：${tool} 执行失败或超时，是否已生效未知。不要再次调用，请告诉用户会有人工核实。`,
  vague: () => '工具执行失败',
  handoff: () => '抱歉，这个问题我这边无法独立完成，已为你转接人工客服，稍后会有同事跟进。',
};

/** The loop's texts in a locale. */
export function loopTexts(locale: Locale): LoopTexts {
  return locale === 'zh-CN' ? chinese : english;
}
