import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentEvent } from '../../src/events/agent-event.js';
import { EventBus } from '../../src/events/event-bus.js';
import type { ChatMessage } from '../../src/loop/chat-message.js';
import { type RunResult, runAgent } from '../../src/loop/run-agent.js';
import type { ErrorStyle } from '../../src/loop/run-tool-call.js';
import type { StopReason } from '../../src/loop/stop-reason.js';
import type { Script } from '../../src/models/script.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { ToolRegistry } from '../../src/tools/tool-registry.js';
import type { Locale } from '../../src/tools/tool-types.js';
import englishScript from './scripts/order-status.en.json' with { type: 'json' };
import chineseScript from './scripts/order-status.zh-CN.json' with { type: 'json' };
import { openShopDatabase } from './shop-database.js';
import { createShopTools } from './shop-tools.js';

const customerQuestion: Record<Locale, string> = {
  en: 'Hi, where is my order 12345? The confirmation email calls it SO20260901.',
  'zh-CN': '你好，我的订单 12345 到哪了？确认邮件里写的是 SO20260901。',
};

const labels: Record<Locale, Record<'customer' | 'model' | 'arbiter' | 'assistant', string>> = {
  en: { customer: 'customer ', model: 'model    ', arbiter: 'arbiter  ', assistant: 'assistant' },
  'zh-CN': { customer: '顾客     ', model: '模型     ', arbiter: 'arbiter  ', assistant: '助手     ' },
};

const verdicts: Record<Locale, Record<'calls' | 'rejected' | 'refused' | 'braked' | 'ran' | 'skipped', string>> = {
  en: {
    calls: 'calls',
    rejected: 'rejected before execution; the model reads:',
    refused: 'the tool refused; the model reads:',
    braked: 'stopped by a brake; the model reads:',
    ran: 'ran; result:',
    skipped: 'not run:',
  },
  'zh-CN': {
    calls: '调用',
    rejected: '执行前被拦下，模型读到：',
    refused: '工具拒绝，模型读到：',
    braked: '被刹车拦下，模型读到：',
    ran: '已执行，结果：',
    skipped: '未执行：',
  },
};

export interface ShopDemoOptions {
  readonly errorStyle?: ErrorStyle;
  readonly locale?: Locale;
  /** Where the shop's database and arbiter's store live; `:memory:` keeps nothing. */
  readonly dataDirectory?: string;
  readonly write: (line: string) => void;
}

/**
 * The offline demo: a customer asks about an order, the scripted model
 * sends a malformed order number, arbiter rejects it before execution with
 * a message the model can act on, the model corrects itself and answers.
 * With `errorStyle: 'vague'` the same script cannot recover.
 *
 * @example
 * await runShopDemo({ write: console.log });
 */
export async function runShopDemo({
  errorStyle = 'full',
  locale = 'en',
  dataDirectory = '.arbiter',
  write,
}: ShopDemoOptions): Promise<RunResult> {
  const inMemory = dataDirectory === ':memory:';
  if (!inMemory) mkdirSync(dataDirectory, { recursive: true });
  const shop = openShopDatabase({ path: inMemory ? ':memory:' : join(dataDirectory, 'shop.db') });
  const store = openSqliteStore({ path: inMemory ? ':memory:' : join(dataDirectory, 'arbiter.db') });
  try {
    const registry = new ToolRegistry();
    for (const tool of createShopTools({ database: shop })) registry.register(tool);
    const script = (locale === 'zh-CN' ? chineseScript : englishScript) as Script;
    const model = new ScriptedModel({ script });
    const events = new EventBus();
    const toolEvents = new Map<string, AgentEvent>();
    events.subscribe((event) => {
      if (event.type === 'tool:end' || event.type === 'tool:error') toolEvents.set(event.toolCallId, event);
    });
    const question: ChatMessage = { role: 'user', content: customerQuestion[locale] };
    const startedAt = Date.now();
    const result = await runAgent({
      model,
      tools: registry,
      messages: [question],
      principal: { tenantId: 'shop', userId: 'C1001', roles: ['customer'] },
      events,
      locale,
      errorStyle,
    });
    await new Promise((resolve) => setImmediate(resolve));
    store.saveRun({
      runId: result.runId,
      sessionId: undefined,
      model: model.name,
      startedAt,
      endedAt: Date.now(),
      stopReason: result.stopReason,
      steps: result.steps,
      inputTokens: result.usage.inputTokens,
      outputTokens: result.usage.outputTokens,
      errorCode: result.error?.code,
    });
    for (const line of renderTranscript({ messages: result.messages, toolEvents, locale })) write(line);
    write(summaryLine(result, locale));
    return result;
  } finally {
    store.close();
    shop.close();
  }
}

function renderTranscript({
  messages,
  toolEvents,
  locale,
}: {
  messages: readonly ChatMessage[];
  toolEvents: ReadonlyMap<string, AgentEvent>;
  locale: Locale;
}): string[] {
  const label = labels[locale];
  const verdict = verdicts[locale];
  const indent = ' '.repeat(label.arbiter.length + 1);
  const lines: string[] = [];
  const names = new Map<string, string>();
  for (const message of messages) {
    if (message.role === 'user') lines.push(`${label.customer} ${message.content}`);
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) {
        names.set(call.id, call.function.name);
        lines.push(`${label.model} ${verdict.calls} ${call.function.name} ${call.function.arguments}`);
      }
      if (message.content) lines.push(`${label.assistant} ${message.content}`);
    }
    if (message.role === 'tool') {
      const event = toolEvents.get(message.tool_call_id);
      const name = names.get(message.tool_call_id) ?? '';
      if (event?.type === 'tool:end') {
        lines.push(`${label.arbiter} ${name} ${verdict.ran} ${shorten(message.content, 110)}`);
        continue;
      }
      const heading =
        event?.type !== 'tool:error'
          ? verdict.skipped
          : event.stage === 'validation'
            ? verdict.rejected
            : event.stage === 'brake'
              ? verdict.braked
              : verdict.refused;
      lines.push(`${label.arbiter} ${heading}`);
      for (const line of message.content.split('\n')) lines.push(`${indent}${line}`);
    }
  }
  return lines;
}

const stopExplanations: Partial<Record<StopReason, Record<Locale, string>>> = {
  completed: { en: 'the model answered', 'zh-CN': '模型已作答' },
  tool_failures: {
    en: 'the model could not fix its call; arbiter stopped the run and handed off to a person',
    'zh-CN': '模型无法自行改正调用；arbiter 停止本轮并转接人工',
  },
};

function summaryLine(result: RunResult, locale: Locale): string {
  const toolCalls = result.messages.filter((message) => message.role === 'tool').length;
  const explanation = stopExplanations[result.stopReason]?.[locale];
  const counts =
    locale === 'zh-CN'
      ? `模型调用 ${result.steps} 次，工具调用 ${toolCalls} 次`
      : `${result.steps} model calls, ${toolCalls} tool calls`;
  const separator = locale === 'zh-CN' ? '；' : '; ';
  return `[${result.stopReason}] ${explanation === undefined ? '' : `${explanation}${separator}`}${counts}`;
}

function shorten(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}
