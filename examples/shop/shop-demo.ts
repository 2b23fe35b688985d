import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createNdjsonPrinter, createProgressPrinter } from '../../src/cli/progress-printer.js';
import { UsageError } from '../../src/errors/usage-error.js';
import type { AgentEvent } from '../../src/events/agent-event.js';
import { EventBus } from '../../src/events/event-bus.js';
import type { Principal } from '../../src/gate/principal.js';
import { resumeAfterApproval } from '../../src/gate/resume-after-approval.js';
import { SqliteApprovalBroker } from '../../src/gate/sqlite-approval-broker.js';
import { type AuditRecord, SqliteAuditLog } from '../../src/gate/sqlite-audit-log.js';
import { SqliteIdempotencyStore } from '../../src/gate/sqlite-idempotency-store.js';
import { createTierGate } from '../../src/gate/tier-gate.js';
import type { RunResult } from '../../src/loop/run-agent.js';
import { runSession } from '../../src/loop/run-session.js';
import type { ErrorStyle } from '../../src/loop/run-tool-call.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import { createTraceWriter } from '../../src/observe/trace-writer.js';
import { SqliteSessionStore } from '../../src/store/sqlite-session-store.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { ToolRegistry } from '../../src/tools/tool-registry.js';
import type { Locale } from '../../src/tools/tool-types.js';
import { openShopDomain, shopDemoScripts } from './shop-domain.js';
import { ShopTranscript } from './shop-transcript.js';

const customer: Principal = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] };

const customerQuestion: Record<Locale, string> = {
  en: 'Hi, where is my order 12345? The confirmation email calls it SO20260901.',
  'zh-CN': '你好，我的订单 12345 到哪了？确认邮件里写的是 SO20260901。',
};

const refundRequest: Record<Locale, string> = {
  en: 'Thanks! Two refunds, please: the box of the mouse in SO20260901 arrived crushed, so 20 yuan back would be fair; and the glass teapot from SO20260902 arrived cracked, so please refund its 200.00 yuan.',
  'zh-CN':
    '谢谢！还有两笔退款：SO20260901 的鼠标外包装压坏了，退 20 元就好；SO20260902 的玻璃茶壶到货就裂了，请退 200.00 元。',
};

const rejectReason: Record<Locale, string> = {
  en: 'Please send us a photo of the cracked teapot first; staff will review the refund within one business day',
  'zh-CN': '请先发一张茶壶破损的照片，工作人员会在一个工作日内复核这笔退款',
};

/** What the demo does when the large refund waits for a person. */
export type DemoApproval = 'approve' | 'reject' | 'ask' | 'leave_pending';

export interface ShopDemoOptions {
  readonly errorStyle?: ErrorStyle;
  readonly locale?: Locale;
  /** Where the shop's database and arbiter's store live; `:memory:` keeps nothing. */
  readonly dataDirectory?: string;
  readonly write: (line: string) => void;
  /** Default `leave_pending`: the run stays suspended in the store, to be decided later. */
  readonly approval?: DemoApproval;
  /** For `approval: 'ask'`: asks the operator a yes/no question. Default: on the terminal. */
  readonly ask?: (question: string) => Promise<boolean>;
  /** Who decides, as recorded in the approvals and the audit log. */
  readonly approver?: string;
  /** The shop's clock (refund timestamps); tests pass a fixed one. */
  readonly now?: () => Date;
  /**
   * What to show while each run happens: `progress` prints progress lines
   * (and a typing indicator on a terminal) as events arrive, `ndjson` the
   * external event stream, `off` nothing (the transcript still follows each run).
   */
  readonly live?: 'progress' | 'ndjson' | 'off';
  /** Raw output for the live printers (lines end with `\n`). Default: `write` without the newline. */
  readonly writeRaw?: (text: string) => void;
  /** Draw the typing indicator. Pass `process.stdout.isTTY`. */
  readonly tty?: boolean;
  /** How long the scripted model "thinks" before each answer, so live progress is visible. Default 0. */
  readonly modelLatencyMs?: number;
  /**
   * Continue this stored session instead of starting a new one (created
   * with this id if it does not exist). A run it left suspended or
   * interrupted is resumed first.
   */
  readonly sessionId?: string;
  /** Told the id of the session the demo runs in. */
  readonly onSession?: (sessionId: string) => void;
}

/**
 * Picks the demo's approval mode from the command line: `--reject`,
 * `--approve` or `APPROVE=1`, else asking on a terminal, else leaving the
 * approval pending.
 *
 * @example
 * demoApprovalMode({ approve: false, reject: false, env: process.env, isTTY: process.stdin.isTTY === true });
 */
export function demoApprovalMode({
  approve,
  reject,
  env,
  isTTY,
}: {
  approve: boolean;
  reject: boolean;
  env: Readonly<Record<string, string | undefined>>;
  isTTY: boolean;
}): DemoApproval {
  if (approve && reject) throw new UsageError({ message: '--approve and --reject exclude each other' });
  if (reject) return 'reject';
  if (approve || env['APPROVE'] === '1') return 'approve';
  return isTTY ? 'ask' : 'leave_pending';
}

/**
 * The offline demo, in one stored session. First a customer asks about an
 * order: the scripted model sends a malformed order number, arbiter rejects
 * it before execution with a message the model can act on, the model
 * corrects itself and answers (with `errorStyle: 'vague'` it cannot, and
 * the demo ends there). Then the customer asks for two refunds: 20.00 yuan
 * runs on its own (the audit says `auto_approved`), 200.00 yuan stops at
 * `[awaiting approval]` with nothing refunded. `approval` decides what
 * happens next: approve (the refund runs exactly once, through the stored
 * approval and a resumed run), reject (the model tells the customer), ask
 * on the terminal, or leave it pending for `arbiter approve ID`.
 *
 * @example
 * await runShopDemo({ write: console.log, approval: 'approve' });
 */
export async function runShopDemo({
  errorStyle = 'full',
  locale = 'en',
  dataDirectory = '.arbiter',
  write,
  approval = 'leave_pending',
  ask = askOnTerminal,
  approver = 'demo-operator',
  now,
  live = 'off',
  writeRaw = (text) => write(text.replace(/\n$/, '')),
  tty = false,
  modelLatencyMs = 0,
  sessionId: requestedSession,
  onSession,
}: ShopDemoOptions): Promise<RunResult> {
  const demo = openDemo({ dataDirectory, locale, modelLatencyMs, ...(now === undefined ? {} : { now }) });
  const watch = <Result>(work: () => Promise<Result>) => watchLive({ demo, live, writeRaw, tty, locale, work });
  try {
    const existing = requestedSession === undefined ? undefined : await demo.sessions.load(requestedSession);
    const session =
      existing ??
      (await demo.sessions.create({
        principal: customer,
        ...(requestedSession === undefined ? {} : { sessionId: requestedSession }),
      }));
    const sessionId = session.id;
    onSession?.(sessionId);
    const runOptions = { ...demo.runOptions, errorStyle };
    const show = (result: RunResult) => {
      demo.saveRun(result);
      for (const line of demo.transcript.render({ ...demo.state(sessionId), messages: result.messages })) write(line);
    };
    const finish = (result: RunResult) => {
      if (result.stopReason === 'awaiting_approval') {
        for (const line of demo.transcript.awaiting(
          demo.broker.listApprovals({ runId: result.runId, status: 'pending' }),
        ))
          write(line);
      }
      write(demo.transcript.summary(result));
    };

    /** Decides a suspended run's approvals as the demo was asked to, and resumes it. */
    const settleApprovals = async (result: RunResult): Promise<{ result: RunResult; leftPending: boolean }> => {
      const pending = demo.broker.listApprovals({ runId: result.runId, status: 'pending' });
      if (result.stopReason !== 'awaiting_approval' || pending.length === 0) return { result, leftPending: false };
      const decision =
        approval === 'ask'
          ? (await ask(
              approvalQuestion(
                locale,
                pending.map((record) => `${record.tool} ${JSON.stringify(record.arguments)}`),
              ),
            ))
            ? 'approve'
            : 'reject'
          : approval;
      if (decision === 'leave_pending') {
        for (const line of demo.transcript.auditLines(demo.audit.listAudit({ sessionId }))) write(line);
        for (const line of laterHint({
          locale,
          dataDirectory,
          approvalIds: pending.map((record) => record.approvalId),
        }))
          write(line);
        return { result, leftPending: true };
      }
      let last = result;
      for (const record of pending) {
        const outcome = await watch(() =>
          resumeAfterApproval({
            ...runOptions,
            sessions: demo.sessions,
            broker: demo.broker,
            approvalId: record.approvalId,
            decision,
            approver,
            ...(decision === 'reject' ? { reason: rejectReason[locale] } : {}),
          }),
        );
        if (outcome.status !== 'resumed') continue;
        last = outcome.result;
        show(last);
        finish(last);
      }
      return { result: last, leftPending: false };
    };

    if (existing !== undefined) {
      // What an earlier invocation printed is not printed again.
      demo.transcript.render({ ...demo.state(sessionId), messages: existing.messages });
    }
    if (existing?.activeRun !== undefined) {
      // A run this session left suspended or interrupted goes first.
      const resumed = await watch(() =>
        runSession({ ...runOptions, sessions: demo.sessions, sessionId, resume: true }),
      );
      show(resumed);
      finish(resumed);
      const settled = await settleApprovals(resumed);
      if (settled.leftPending) return settled.result;
    }
    const lookup = await watch(() =>
      runSession({ ...runOptions, sessions: demo.sessions, sessionId, userMessage: customerQuestion[locale] }),
    );
    show(lookup);
    finish(lookup);
    if (lookup.stopReason !== 'completed') return lookup;

    const refund = await watch(() =>
      runSession({ ...runOptions, sessions: demo.sessions, sessionId, userMessage: refundRequest[locale] }),
    );
    show(refund);
    finish(refund);
    const settled = await settleApprovals(refund);
    if (settled.leftPending) return settled.result;
    const last = settled.result;
    for (const line of demo.transcript.auditLines(demo.audit.listAudit({ sessionId }))) write(line);
    return last;
  } finally {
    await demo.close();
  }
}

/**
 * Continues a demo session whose approvals were decided elsewhere (e.g. by
 * `arbiter approve ID`): resumes its suspended run and prints what follows.
 *
 * @example
 * await resumeShopDemo({ sessionId, write: console.log });
 */
export async function resumeShopDemo({
  sessionId,
  locale = 'en',
  dataDirectory = '.arbiter',
  write,
}: {
  sessionId: string;
  locale?: Locale;
  dataDirectory?: string;
  write: (line: string) => void;
}): Promise<RunResult> {
  const demo = openDemo({ dataDirectory, locale });
  try {
    const result = await runSession({ ...demo.runOptions, sessions: demo.sessions, sessionId, resume: true });
    demo.saveRun(result);
    const state = demo.state(sessionId);
    const shown = result.messages.length - result.newMessages.length;
    demo.transcript.render({ ...state, messages: result.messages.slice(0, shown) });
    for (const line of demo.transcript.render({ ...state, messages: result.messages })) write(line);
    write(demo.transcript.summary(result));
    for (const line of demo.transcript.auditLines(demo.audit.listAudit({ sessionId }))) write(line);
    return result;
  } finally {
    await demo.close();
  }
}

/** Runs `work` with a live printer subscribed to the demo's events, and clears it before the transcript. */
async function watchLive<Result>({
  demo,
  live,
  writeRaw,
  tty,
  locale,
  work,
}: {
  demo: ReturnType<typeof openDemo>;
  live: 'progress' | 'ndjson' | 'off';
  writeRaw: (text: string) => void;
  tty: boolean;
  locale: Locale;
  work: () => Promise<Result>;
}): Promise<Result> {
  if (live === 'off') return work();
  const tools = demo.runOptions.tools;
  const printer =
    live === 'ndjson'
      ? createNdjsonPrinter({ write: writeRaw, tools, locale })
      : createProgressPrinter({ write: writeRaw, locale, tty, tools });
  const subscription = demo.runOptions.events.subscribe(printer.listener, { queueSize: 10_000 });
  try {
    return await work();
  } finally {
    await demo.runOptions.events.idle();
    await printer.close();
    subscription();
  }
}

function openDemo({
  dataDirectory,
  locale,
  now,
  modelLatencyMs = 0,
}: {
  dataDirectory: string;
  locale: Locale;
  now?: () => Date;
  modelLatencyMs?: number;
}) {
  const inMemory = dataDirectory === ':memory:';
  if (!inMemory) mkdirSync(dataDirectory, { recursive: true });
  // The shop's tools and gate rules (the refund hard cap) come from its one wiring module, as in eval and serve.
  const shop = openShopDomain({ dataDir: dataDirectory, ...(now === undefined ? {} : { now }) });
  const store = openSqliteStore({ path: inMemory ? ':memory:' : join(dataDirectory, 'arbiter.db') });
  const database = store.database;
  const registry = new ToolRegistry();
  for (const tool of shop.tools) registry.register(tool);
  const model = new ScriptedModel({ script: shopDemoScripts[locale], latencyMs: modelLatencyMs });
  const events = new EventBus();
  const toolEvents = new Map<string, AgentEvent>();
  events.subscribe((event) => {
    if (event.type === 'tool:end' || event.type === 'tool:error') toolEvents.set(event.toolCallId, event);
  });
  // Every run's steps as JSON lines (digests only), for `arbiter stats`.
  const trace = inMemory
    ? undefined
    : createTraceWriter({
        bus: events,
        write: (line) => appendFileSync(join(dataDirectory, 'traces.jsonl'), `${line}\n`),
      });
  const audit = new SqliteAuditLog({ database });
  const broker = new SqliteApprovalBroker({ database });
  const startedAt = Date.now();
  return {
    sessions: new SqliteSessionStore({ database }),
    broker,
    audit,
    transcript: new ShopTranscript({ locale }),
    runOptions: {
      model,
      tools: registry,
      principal: customer,
      events,
      locale,
      gate: createTierGate({ rules: shop.gateRules, tools: registry, locale }),
      approvals: broker,
      idempotency: new SqliteIdempotencyStore({ database }),
      audit,
    },
    /** What the transcript needs besides messages: tool events and the audit of the session. */
    state: (sessionId: string) => ({
      toolEvents,
      audit: new Map(audit.listAudit({ sessionId }).map((entry): [string, AuditRecord] => [entry.toolCallId, entry])),
    }),
    saveRun: (result: RunResult) =>
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
      }),
    close: async () => {
      await events.idle();
      trace?.stop();
      store.close();
      shop.close();
    },
  };
}

function approvalQuestion(locale: Locale, calls: readonly string[]): string {
  return locale === 'zh-CN' ? `确认执行 ${calls.join('；')}？[y/N] ` : `Approve ${calls.join('; ')}? [y/N] `;
}

function laterHint({
  locale,
  dataDirectory,
  approvalIds,
}: {
  locale: Locale;
  dataDirectory: string;
  approvalIds: readonly string[];
}): string[] {
  const indent = ' '.repeat(10);
  if (dataDirectory === ':memory:') {
    return [
      locale === 'zh-CN'
        ? `${indent}（内存模式：进程结束即丢失；用 --data-dir 保存后可稍后确认）`
        : `${indent}(in memory: nothing is kept; use --data-dir to decide later)`,
    ];
  }
  const flag = dataDirectory === '.arbiter' ? '' : ` --data-dir ${dataDirectory}`;
  return approvalIds.flatMap((approvalId) =>
    locale === 'zh-CN'
      ? [`${indent}稍后确认：npm run arbiter -- approve ${approvalId}${flag}（拒绝：加 --reject --reason "…"）`]
      : [`${indent}decide later: npm run arbiter -- approve ${approvalId}${flag}   (or: --reject --reason "…")`],
  );
}

async function askOnTerminal(question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const terminal = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^(y|yes|是|好)$/i.test((await terminal.question(question)).trim());
  } finally {
    terminal.close();
  }
}
