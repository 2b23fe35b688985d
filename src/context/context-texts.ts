import type { Locale } from '../core/locale.js';

/** What compression says in the conversation, in the run's language. Model-facing: no internal names. */
export interface ContextTexts {
  stub(details: { tool: string; characters: number }): string;
  removed(details: { messages: number }): string;
  state(details: { slots: string | undefined; refused: readonly string[]; unfinished: readonly string[] }): string;
  summary(details: { text: string }): string;
  summarizerInstructions(): string;
}

const english: ContextTexts = {
  stub: ({ tool, characters }) =>
    `[Output of ${tool} removed to save context (${characters} characters). Call ${tool} again if you need it.]`,
  removed: ({ messages }) =>
    `[${messages} earlier messages were removed to fit the context window. Results of actions that changed something are kept below, verbatim.]`,
  state: ({ slots, refused, unfinished }) =>
    [
      'Session state, kept verbatim through compression:',
      ...(slots === undefined ? [] : [`Confirmed parameters: ${slots}`]),
      ...(refused.length === 0 ? [] : [`The user refused: ${refused.join('; ')}`]),
      ...(unfinished.length === 0 ? [] : [`Unfinished steps: ${unfinished.join('; ')}`]),
    ].join('\n'),
  summary: ({ text }) => `Summary of the earlier conversation:\n${text}`,
  summarizerInstructions: () =>
    'Summarise the conversation below for an assistant that will continue it without seeing it. Keep, word for ' +
    'word: parameters the user confirmed, ids and numbers, conditions and negations, options the user refused, ' +
    'steps not finished yet, and what every action that changed something returned. Drop greetings and ' +
    'repetition. Plain sentences, at most 200 words.',
};

const chinese: ContextTexts = {
  stub: ({ tool, characters }) =>
    `[为节省上下文，已删除 ${tool} 的返回原文（${characters} 字符）。需要时请再次调用 ${tool}。]`,
  removed: ({ messages }) =>
    `[为适应上下文窗口，已删除之前的 ${messages} 条消息。改变了数据的操作结果原样保留在下方。]`,
  state: ({ slots, refused, unfinished }) =>
    [
      '会话状态（压缩时原样保留）：',
      ...(slots === undefined ? [] : [`已确认的参数：${slots}`]),
      ...(refused.length === 0 ? [] : [`用户明确拒绝：${refused.join('；')}`]),
      ...(unfinished.length === 0 ? [] : [`未完成的步骤：${unfinished.join('；')}`]),
    ].join('\n'),
  summary: ({ text }) => `之前对话的摘要：\n${text}`,
  summarizerInstructions: () =>
    '为将继续这段对话、但看不到原文的助手总结下面的对话。原样保留：用户确认的参数、编号与数字、条件与否定、用户明确拒绝的选项、' +
    '未完成的步骤，以及每个改变了数据的操作的返回结果。省略寒暄与重复。用简洁的句子，不超过 300 字。',
};

/**
 * The texts for a locale.
 *
 * @example
 * contextTexts('zh-CN').removed({ messages: 12 });
 */
export function contextTexts(locale: Locale): ContextTexts {
  return locale === 'zh-CN' ? chinese : english;
}
