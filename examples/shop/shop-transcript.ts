import type { AgentEvent } from '../../src/events/agent-event.js';
import type { ApprovalRecord } from '../../src/gate/sqlite-approval-broker.js';
import type { AuditRecord } from '../../src/gate/sqlite-audit-log.js';
import type { ChatMessage } from '../../src/loop/chat-message.js';
import type { RunResult } from '../../src/loop/run-agent.js';
import type { StopReason } from '../../src/loop/stop-reason.js';
import type { Locale } from '../../src/tools/tool-types.js';

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
  replayed(): string;
  refunded(refundNo: string, yuan: string, orderId: string): string;
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
    replayed: () => 'already done earlier with the same idempotency key: the first result, nothing ran twice',
    refunded: (refundNo, yuan, orderId) => `[refunded] ${refundNo}: ${yuan} yuan on ${orderId}`,
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
    replayed: () => '同一幂等键之前已执行过：返回第一次的结果，没有重复执行',
    refunded: (refundNo, yuan, orderId) => `[已退款] ${refundNo}：${yuan} 元，订单 ${orderId}`,
    awaiting: (approvalId, reason) => `[待确认] ${approvalId}：${reason} 尚未退款。`,
  },
};

const stopExplanations: Partial<Record<StopReason, Record<Locale, string>>> = {
  completed: { en: 'the model answered', 'zh-CN': '模型已作答' },
  tool_failures: {
    en: 'the model could not fix its call; arbiter stopped the run and handed off to a person',
    'zh-CN': '模型无法自行改正调用；arbiter 停止本轮并转接人工',
  },
  awaiting_approval: {
    en: 'a call waits for a person; the run is suspended and can be resumed',
    'zh-CN': '有调用在等待人工确认；本轮已挂起，可稍后继续',
  },
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
  readonly #names = new Map<string, string>();
  #shown = 0;

  constructor({ locale }: { locale: Locale }) {
    this.#locale = locale;
  }

  /** Lines for the messages after those already rendered. */
  render({
    messages,
    toolEvents,
    audit,
  }: {
    messages: readonly ChatMessage[];
    toolEvents: ReadonlyMap<string, AgentEvent>;
    audit: ReadonlyMap<string, AuditRecord>;
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
        }
        if (message.content) lines.push(`${label.assistant} ${message.content}`);
      }
      if (message.role !== 'tool') continue;
      const event = toolEvents.get(message.tool_call_id);
      const entry = audit.get(message.tool_call_id);
      const name = this.#names.get(message.tool_call_id) ?? '';
      if (entry?.decision === 'auto_approved') arbiter(say.autoApproved(entry.rule ?? ''));
      if (entry?.decision === 'approved') arbiter(say.approved(entry.approver ?? '', entry.rule ?? ''));
      if (entry?.outcome.startsWith('replayed:')) arbiter(say.replayed());
      if (event?.type === 'tool:end') {
        arbiter(`${name} ${say.ran} ${shorten(message.content, 110)}`);
        const refund = name === 'apply_refund' ? readRefund(message.content) : undefined;
        if (refund !== undefined) arbiter(say.refunded(refund.refundNo, refund.yuan, refund.orderId));
        continue;
      }
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
    const explanation = stopExplanations[result.stopReason]?.[locale];
    const counts =
      locale === 'zh-CN'
        ? `模型调用 ${result.steps} 次，工具调用 ${toolCalls} 次`
        : `${result.steps} model ${result.steps === 1 ? 'call' : 'calls'}, ${toolCalls} tool ${toolCalls === 1 ? 'call' : 'calls'}`;
    const separator = locale === 'zh-CN' ? '；' : '; ';
    return `[${result.stopReason}] ${explanation === undefined ? '' : `${explanation}${separator}`}${counts}`;
  }

  /** The audit log of the conversation, one line per entry. */
  auditLines(entries: readonly AuditRecord[]): string[] {
    const label = labels[this.#locale];
    return entries.map((entry) =>
      [
        label.audit,
        entry.tool.padEnd(13),
        entry.sideEffect.padEnd(12),
        entry.decision.padEnd(13),
        (entry.rule ?? '-').padEnd(22),
        (entry.approver ?? '-').padEnd(13),
        entry.outcome,
      ].join(' '),
    );
  }
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
