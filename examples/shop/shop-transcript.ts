import type { AgentEvent, ChatMessage, Locale, RunResult, StopReason } from '@arbiter-runtime/core';
import type { ApprovalRecord, AuditRecord } from '@arbiter-runtime/core/sqlite';

/** Progress lines kept for the tool call they belong to (see `createProgressCollector`). */
export interface ProgressByCall {
  take(toolCallId: string): readonly string[];
}

type Label = 'customer' | 'model' | 'arbiter' | 'assistant' | 'audit';

const labels: Record<Locale, Record<Label, string>> = {
  en: { customer: 'customer ', model: 'model    ', arbiter: 'arbiter  ', assistant: 'assistant', audit: 'audit    ' },
  'zh-CN': {
    customer: '顾客     ',
    model: '模型     ',
    arbiter: 'arbiter  ',
    assistant: '助手     ',
    audit: '审计     ',
  },
};

interface Phrases {
  readonly calls: string;
  readonly rejected: string;
  readonly refused: string;
  readonly gateRefused: string;
  readonly braked: string;
  readonly ran: string;
  readonly skipped: string;
  autoApproved(rule: string): string;
  approved(approver: string, rule: string): string;
  declined(approver: string): string;
  replayed(tool: string): string;
  refunded(refundNo: string, yuan: string, orderId: string): string;
  refundedEarlier(refundNo: string, yuan: string, orderId: string): string;
  awaiting(approvalId: string, reason: string): string;
}

const phrases: Record<Locale, Phrases> = {
  en: {
    calls: 'calls',
    rejected: 'rejected before execution; the model reads:',
    refused: 'the tool refused; the model reads:',
    gateRefused: 'refused by the gate; the model reads:',
    braked: 'stopped by a brake; the model reads:',
    ran: 'ran; result:',
    skipped: 'not run:',
    autoApproved: (rule) => `auto-approved by rule ${rule}`,
    approved: (approver, rule) => `approved by ${approver} (rule ${rule})`,
    declined: (approver) => `rejected by ${approver}; the model reads:`,
    replayed: (tool) =>
      `${tool} did not run again: an earlier call with the same idempotency key did; the model reads that call's result:`,
    refunded: (refundNo, yuan, orderId) => `[refunded] ${refundNo}: ${yuan} yuan on ${orderId}`,
    refundedEarlier: (refundNo, yuan, orderId) =>
      `[refunded earlier] ${refundNo}: ${yuan} yuan on ${orderId}; nothing was refunded now`,
    awaiting: (approvalId, reason) => `[awaiting approval] ${approvalId}: ${reason} Nothing was refunded.`,
  },
  'zh-CN': {
    calls: '调用',
    rejected: '执行前被拦下，模型读到：',
    refused: '工具拒绝，模型读到：',
    gateRefused: '被权限闸拒绝，模型读到：',
    braked: '被刹车拦下，模型读到：',
    ran: '已执行，结果：',
    skipped: '未执行：',
    autoApproved: (rule) => `按规则 ${rule} 自动放行`,
    approved: (approver, rule) => `${approver} 已确认（规则 ${rule}）`,
    declined: (approver) => `${approver} 已拒绝，模型读到：`,
    replayed: (tool) => `${tool} 没有再次执行：同一幂等键的调用之前已执行过，模型读到的是那次的结果：`,
    refunded: (refundNo, yuan, orderId) => `[已退款] ${refundNo}：${yuan} 元，订单 ${orderId}`,
    refundedEarlier: (refundNo, yuan, orderId) =>
      `[此前已退款] ${refundNo}：${yuan} 元，订单 ${orderId}；这次没有再退款`,
    awaiting: (approvalId, reason) => `[待确认] ${approvalId}：${reason} 尚未退款。`,
  },
};

/** Each stop reason as a person reads it: its label in brackets and why the run stopped. */
const stopTexts: Record<StopReason, Record<Locale, { readonly label: string; readonly explanation: string }>> = {
  completed: {
    en: { label: 'completed', explanation: 'the model answered' },
    'zh-CN': { label: '已完成', explanation: '模型已作答' },
  },
  max_steps: {
    en: { label: 'max_steps', explanation: 'the run used up its steps; arbiter stopped it' },
    'zh-CN': { label: '步数用尽', explanation: '本轮步数已用尽，arbiter 已停止' },
  },
  token_budget: {
    en: { label: 'token_budget', explanation: 'the run used up its token budget; arbiter stopped it' },
    'zh-CN': { label: 'token 预算用尽', explanation: '本轮 token 预算已用尽，arbiter 已停止' },
  },
  cost_budget: {
    en: { label: 'cost_budget', explanation: 'the run used up its cost budget; arbiter stopped it' },
    'zh-CN': { label: '费用预算用尽', explanation: '本轮费用预算已用尽，arbiter 已停止' },
  },
  deadline: {
    en: { label: 'deadline', explanation: 'the run ran past its deadline; arbiter stopped it' },
    'zh-CN': { label: '超时', explanation: '本轮超过时限，arbiter 已停止' },
  },
  repeated_call: {
    en: { label: 'repeated_call', explanation: 'the model made the same call a third time; arbiter stopped the run' },
    'zh-CN': { label: '重复调用', explanation: '模型第三次发出相同的调用，arbiter 已停止本轮' },
  },
  tool_failures: {
    en: {
      label: 'tool_failures',
      explanation: 'the model could not fix its call; arbiter stopped the run and handed off to a person',
    },
    'zh-CN': { label: '转接人工', explanation: '模型无法自行改正调用；arbiter 停止本轮并转接人工' },
  },
  aborted: {
    en: { label: 'aborted', explanation: 'the run was aborted' },
    'zh-CN': { label: '已中止', explanation: '本轮已被中止' },
  },
  awaiting_approval: {
    en: {
      label: 'awaiting_approval',
      explanation: 'a call waits for a person; the run is suspended and can be resumed',
    },
    'zh-CN': { label: '等待确认', explanation: '有调用在等待人工确认；本轮已挂起，可稍后继续' },
  },
  error: {
    en: { label: 'error', explanation: 'an infrastructure error stopped the run' },
    'zh-CN': { label: '出错', explanation: '基础设施出错，本轮已停止' },
  },
};

/** The audit log's values as the Chinese transcript prints them; tool and rule names stay as they are. */
const chineseAuditValues: Readonly<Record<string, string>> = {
  read: '只读',
  reversible: '可撤销',
  irreversible: '不可逆',
  allowed: '放行',
  auto_approved: '自动放行',
  approved: '人工确认',
  rejected: '人工拒绝',
  denied: '拒绝',
  ok: '成功',
  not_run: '未执行',
  outcome_unknown: '结果未知',
  aborted: '已中止',
  infrastructure_failure: '基础设施故障',
  undone: '已撤销',
  undo_failed: '撤销失败',
};

/**
 * Turns the demo's conversation into the lines it prints, run by run: only
 * messages not shown yet, each tool message explained from the run's events
 * and the audit log (how the gate decided, whether an idempotency key
 * replayed a result).
 *
 * @example
 * const transcript = new ShopTranscript({ locale: 'en' });
 * for (const line of transcript.render({ messages, toolEvents, audit })) console.log(line);
 */
export class ShopTranscript {
  readonly #locale: Locale;
  readonly #undoHint: ((entry: AuditRecord) => string) | undefined;
  readonly #names = new Map<string, string>();
  #shown = 0;

  /** `undoHint`: the line printed under a reversible call that ran, e.g. the command that takes it back. */
  constructor({ locale, undoHint }: { locale: Locale; undoHint?: (entry: AuditRecord) => string }) {
    this.#locale = locale;
    this.#undoHint = undoHint;
  }

  /**
   * Lines for the messages after those already rendered. With `progress`,
   * each call's progress lines follow the line that shows the call (or, for
   * a call shown earlier, come before what happened to it).
   */
  render({
    messages,
    toolEvents,
    audit,
    progress,
  }: {
    messages: readonly ChatMessage[];
    toolEvents: ReadonlyMap<string, AgentEvent>;
    audit: ReadonlyMap<string, AuditRecord>;
    progress?: ProgressByCall;
  }): string[] {
    const label = labels[this.#locale];
    const say = phrases[this.#locale];
    const indent = ' '.repeat(label.arbiter.length + 1);
    const lines: string[] = [];
    const arbiter = (text: string) => lines.push(`${label.arbiter} ${text}`);
    for (const message of messages.slice(this.#shown)) {
      if (message.role === 'user') lines.push(`${label.customer} ${message.content}`);
      if (message.role === 'assistant') {
        for (const call of message.tool_calls ?? []) {
          this.#names.set(call.id, call.function.name);
          lines.push(`${label.model} ${say.calls} ${call.function.name} ${call.function.arguments}`);
          lines.push(...(progress?.take(call.id) ?? []));
        }
        if (message.content) lines.push(`${label.assistant} ${message.content}`);
      }
      if (message.role !== 'tool') continue;
      lines.push(...(progress?.take(message.tool_call_id) ?? []));
      const event = toolEvents.get(message.tool_call_id);
      const entry = audit.get(message.tool_call_id);
      const name = this.#names.get(message.tool_call_id) ?? '';
      if (entry?.decision === 'auto_approved') arbiter(say.autoApproved(entry.rule ?? ''));
      if (entry?.decision === 'approved') arbiter(say.approved(entry.approver ?? '', entry.rule ?? ''));
      const replayed = entry?.outcome.startsWith('replayed:') === true;
      if (event?.type === 'tool:end') {
        arbiter(`${replayed ? say.replayed(name) : `${name} ${say.ran}`} ${shorten(message.content, 110)}`);
        const refund = name === 'apply_refund' ? readRefund(message.content) : undefined;
        if (refund !== undefined) {
          const { refundNo, yuan, orderId } = refund;
          arbiter(replayed ? say.refundedEarlier(refundNo, yuan, orderId) : say.refunded(refundNo, yuan, orderId));
        }
        if (entry !== undefined && entry.sideEffect === 'reversible' && entry.outcome === 'ok' && this.#undoHint) {
          arbiter(this.#undoHint(entry));
        }
        continue;
      }
      if (replayed) arbiter(say.replayed(name));
      const heading =
        entry?.decision === 'rejected'
          ? say.declined(entry.approver ?? '')
          : event?.type !== 'tool:error'
            ? say.skipped
            : event.stage === 'validation'
              ? say.rejected
              : event.stage === 'brake'
                ? say.braked
                : event.stage === 'gate'
                  ? say.gateRefused
                  : say.refused;
      arbiter(heading);
      for (const line of message.content.split('\n')) lines.push(`${indent}${line}`);
    }
    this.#shown = messages.length;
    return lines;
  }

  /** One line per call that waits for a person. */
  awaiting(approvals: readonly ApprovalRecord[]): string[] {
    const label = labels[this.#locale];
    return approvals.map(
      (approval) => `${label.arbiter} ${phrases[this.#locale].awaiting(approval.approvalId, approval.reason)}`,
    );
  }

  /** The run's stop reason, why, and what it cost. */
  summary(result: RunResult): string {
    const locale = this.#locale;
    let lastUser = result.messages.length - 1;
    while (lastUser >= 0 && result.messages[lastUser]?.role !== 'user') lastUser -= 1;
    const toolCalls = result.messages.slice(lastUser + 1).filter((message) => message.role === 'tool').length;
    const { label, explanation } = stopTexts[result.stopReason][locale];
    const counts =
      locale === 'zh-CN'
        ? `模型调用 ${result.steps} 次，工具调用 ${toolCalls} 次`
        : `${result.steps} model ${result.steps === 1 ? 'call' : 'calls'}, ${toolCalls} tool ${toolCalls === 1 ? 'call' : 'calls'}`;
    const separator = locale === 'zh-CN' ? '；' : '; ';
    return `[${label}] ${explanation}${separator}${counts}`;
  }

  /** The audit log of the conversation, one line per entry, its values in the transcript's language. */
  auditLines(entries: readonly AuditRecord[]): string[] {
    const label = labels[this.#locale];
    const value = (text: string) => (this.#locale === 'zh-CN' ? chineseAuditValue(text) : text);
    return entries.map((entry) =>
      [
        label.audit,
        padColumns(entry.tool, 15),
        padColumns(value(entry.sideEffect), 12),
        padColumns(value(entry.decision), 13),
        padColumns(entry.rule ?? '-', 22),
        padColumns(entry.approver ?? '-', 13),
        value(entry.outcome),
      ].join(' '),
    );
  }
}

function chineseAuditValue(text: string): string {
  const replayed = /^replayed:(.*)$/.exec(text);
  if (replayed !== null) return `重放：${chineseAuditValues[replayed[1] ?? ''] ?? replayed[1]}`;
  return chineseAuditValues[text] ?? text;
}

/** Pads to `width` terminal columns: a CJK character takes two. */
function padColumns(text: string, width: number): string {
  const columns = [...text].reduce(
    (total, character) =>
      total +
      (/[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u.test(character)
        ? 2
        : 1),
    0,
  );
  return text + ' '.repeat(Math.max(0, width - columns));
}

function readRefund(content: string): { refundNo: string; yuan: string; orderId: string } | undefined {
  try {
    const data = JSON.parse(content) as { refund_no?: unknown; amount_cents?: unknown; order_id?: unknown };
    if (typeof data.refund_no !== 'string' || typeof data.amount_cents !== 'number') return undefined;
    return { refundNo: data.refund_no, yuan: (data.amount_cents / 100).toFixed(2), orderId: String(data.order_id) };
  } catch {
    return undefined;
  }
}

function shorten(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}
