import type { Locale } from '../core/locale.js';

/** The sentences routing writes for models: the router model's instructions, and the "not sent" answer. */
export interface RoutingTexts {
  /** The router model's system message. */
  routerInstructions(request: { topK: number }): string;
  /** The router model's user message: the catalogue and the request. */
  routerRequest(request: { catalogue: string; task: string | undefined; query: string }): string;
  /** The tool message for a call to a mounted tool that was not sent this step. */
  notSent(request: { tool: string }): string;
}

const english: RoutingTexts = {
  routerInstructions: ({ topK }) =>
    `You choose which tools an assistant needs to handle the user's latest request. Reply with a JSON array of at most ${topK} tool names from the list, most useful first, and nothing else, e.g. ["query_order"]. Reply [] when no tool is needed.`,
  routerRequest: ({ catalogue, task, query }) =>
    `Tools:\n${catalogue}\n\n${task === undefined ? '' : `Task: ${task}\n`}Latest user request: ${query}`,
  notSent: ({ tool }) =>
    `Not run: ${tool} exists but was not among the tools sent for this step, so its definition was not in front of you. It is sent with the next step: check its parameters there and call it again if it is the right tool.`,
};

const chinese: RoutingTexts = {
  routerInstructions: ({ topK }) =>
    `你负责为助手挑选处理用户最新请求所需的工具。只回复一个 JSON 数组，包含列表中最多 ${topK} 个工具名，最有用的在前，不要写其他内容，例如 ["query_order"]。不需要工具时回复 []。`,
  routerRequest: ({ catalogue, task, query }) =>
    `工具：\n${catalogue}\n\n${task === undefined ? '' : `任务：${task}\n`}用户最新请求：${query}`,
  notSent: ({ tool }) =>
    `未执行：${tool} 存在，但不在本步发送给你的工具中，你还没有看到它的定义。下一步会发送它：请先查看它的参数，如果确实是合适的工具，再重新调用。`,
};

/**
 * Routing's texts in a locale.
 *
 * @example
 * routingTexts('zh-CN').notSent({ tool: 'apply_refund' });
 */
export function routingTexts(locale: Locale): RoutingTexts {
  return locale === 'zh-CN' ? chinese : english;
}
