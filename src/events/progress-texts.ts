import type { Locale } from '../core/locale.js';

/** Progress sentences per tool name, per locale. */
export type ProgressTable = Readonly<Record<string, Partial<Record<Locale, string>>>>;

/**
 * Sentences for common tool names. A tool's own `progress` wins over this
 * table; a tool in neither gets the locale's "Working on it…".
 */
export const defaultProgressTable: ProgressTable = {
  query_order: { en: 'Looking up your order…', 'zh-CN': '正在查询订单…' },
  track_shipment: { en: 'Checking the shipment…', 'zh-CN': '正在查询物流…' },
};

/** The sentences a person sees for events, in one locale. */
export interface EventTexts {
  readonly working: string;
  readonly awaitingApproval: string;
  readonly approved: string;
  readonly rejected: string;
  readonly denied: string;
  /** A step failed in a way the model can fix by itself. */
  readonly retrying: string;
  /** A step failed for good (refused, not allowed). */
  readonly stepFailed: string;
  readonly runFailed: string;
  readonly missed: string;
  /** Shown on a terminal while the assistant is busy. */
  readonly typing: string;
}

const texts: Record<Locale, EventTexts> = {
  en: {
    working: 'Working on it…',
    awaitingApproval: 'Waiting for approval…',
    approved: 'Approved.',
    rejected: 'Declined by the approver.',
    denied: 'Not approved.',
    retrying: 'Fixing the request…',
    stepFailed: 'That step could not be done.',
    runFailed: 'Something went wrong. Please try again later.',
    missed: 'Some updates were missed.',
    typing: '…',
  },
  'zh-CN': {
    working: '处理中…',
    awaitingApproval: '等待人工确认…',
    approved: '已确认。',
    rejected: '审批人已拒绝。',
    denied: '未获批准。',
    retrying: '正在修正请求…',
    stepFailed: '这一步无法完成。',
    runFailed: '出了点问题，请稍后再试。',
    missed: '部分进度更新未送达。',
    typing: '…',
  },
};

/**
 * The event sentences of a locale.
 *
 * @example
 * eventTexts('zh-CN').awaitingApproval; // '等待人工确认…'
 */
export function eventTexts(locale: Locale): EventTexts {
  return texts[locale];
}

/**
 * The sentence shown while a tool runs: the tool's own `progress`, else the
 * table's entry, else "Working on it…".
 *
 * @example
 * progressText({ tool: 'query_order', locale: 'zh-CN' }); // '正在查询订单…'
 * progressText({ tool: 'apply_refund', locale: 'en', progress: { en: 'Submitting your refund…' } });
 */
export function progressText({
  tool,
  locale,
  progress,
  table = defaultProgressTable,
}: {
  tool: string;
  locale: Locale;
  progress?: Partial<Record<Locale, string>> | undefined;
  table?: ProgressTable;
}): string {
  const fromTable = Object.hasOwn(table, tool) ? table[tool]?.[locale] : undefined;
  return progress?.[locale] ?? fromTable ?? texts[locale].working;
}
