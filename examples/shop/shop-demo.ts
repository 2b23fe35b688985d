import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  type AgentEvent,
  type ChatMessage,
  createTierGate,
  EventBus,
  type Locale,
  type Model,
  type Principal,
  type RunResult,
  resumeAfterApproval,
  runSession,
  type StopReason,
  ToolRegistry,
} from '@arbiter-runtime/core';
// The error style is the demo's flag; its describer lives with the message experiment.
import { type ErrorStyle, errorDescriber } from '@arbiter-runtime/core/evaluation';
import {
  createNdjsonPrinter,
  createProgressCollector,
  createProgressPrinter,
  createTraceWriter,
  type ProgressCollector,
} from '@arbiter-runtime/core/observe';
import {
  type AuditRecord,
  openSqliteStore,
  SqliteApprovalBroker,
  SqliteAuditLog,
  SqliteIdempotencyStore,
  SqliteSessionStore,
  type SqliteStore,
} from '@arbiter-runtime/core/sqlite';
import { ScriptedModel } from '@arbiter-runtime/core/testing';
import { openShopDomain, shopDemoScripts, shopSystemPrompts } from './shop-domain.js';
import { ShopTranscript } from './shop-transcript.js';
import { ShopUsageError } from './shop-usage-error.js';

const customer: Principal = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] };

const customerQuestion: Record<Locale, string> = {
  en: 'Hi, where is my order 12345? The confirmation email calls it SO20260901. Please ask the courier to leave it at the building reception.',
  'zh-CN': '你好，我的订单 12345 到哪了？确认邮件里写的是 SO20260901。请让快递员把包裹放在楼下前台。',
};

const refundStatusQuestion: Record<Locale, string> = {
  en: 'Hi, I asked for a refund last week, number 2026090001. Has the money come back yet?',
  'zh-CN': '你好，我上周申请过一笔退款，编号 2026090001，钱退回来了吗？',
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
  /** The language (and so the script) of a new session; a stored session continues in the one its runs began in. */
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
   * (on a terminal live, with a typing indicator; otherwise each beside the
   * call it is about, in the transcript), `ndjson` the external event
   * stream, `off` nothing (the transcript still follows each run).
   */
  readonly live?: 'progress' | 'ndjson' | 'off';
  /** Raw output for the live printers (lines end with `\n`). Default: `write` without the newline. */
  readonly writeRaw?: (text: string) => void;
  /** Stdout is a terminal: draw the typing indicator and print progress as it happens. Pass `process.stdout.isTTY`. */
  readonly tty?: boolean;
  /** How long the scripted model "thinks" before each answer, so live progress is visible. Default 0. */
  readonly modelLatencyMs?: number;
  /**
   * A real model instead of the scripted one (`arbiter demo --model local:FILE`): it is told the shop's
   * system prompt at the start of a new session and answers the same three customer requests.
   */
  readonly model?: Model;
  /**
   * Continue this stored demo session instead of starting a new one: a run
   * it left suspended or interrupted is finished first, then the customer's
   * requests that are still to come (all of them again, when the session
   * had finished). A session that does not exist is a `ShopUsageError`, and
   * nothing is created.
   */
  readonly sessionId?: string;
  /**
   * Without `sessionId`: continue the most recent demo session whose run
   * waits for approval, when there is one (what `APPROVE=1 npm run demo`
   * after `npm run demo` means), instead of starting a new session.
   */
  readonly continueWaiting?: boolean;
  /**
   * Told the id of the session the demo runs in, and its language: a stored session goes on in the language it
   * began in, whatever `locale` asks for.
   */
  readonly onSession?: (sessionId: string, locale: Locale) => void;
  /** Adds tools next to the shop's (`arbiter demo --mcp FILE`: MCP servers' tools). */
  readonly mountTools?: (registry: ToolRegistry) => void;
  /**
   * How the commands the demo prints (decide later, undo) start: `npm run arbiter --` in a checkout (the
   * default), `npx arbiter` where the package is installed.
   */
  readonly cli?: string;
}

/** How the demo ended: the stop reason of its last run. */
export interface ShopDemoResult {
  readonly runId: string;
  readonly stopReason: StopReason;
}

/**
 * The offline demo, in one stored session. First a customer asks about an
 * order and for a delivery note: the scripted model sends a malformed order
 * number, arbiter rejects it before execution with a message the model can
 * act on, the model corrects itself, adds the note (a reversible call,
 * printed with the `arbiter undo` command that takes it back) and answers
 * (with `errorStyle: 'vague'` it cannot, and the demo ends there). Then the
 * customer asks after an earlier refund by its number (digits without the
 * `RF` a refund number starts with), and then for two refunds: 20.00 yuan runs on its own (the audit says
 * `auto_approved`), 200.00 yuan stops at `[awaiting approval]` with nothing
 * refunded. `approval` decides what happens next: approve (the refund runs
 * exactly once, through the stored approval and a resumed run), reject (the
 * model tells the customer), ask on the terminal, or leave it pending for
 * `arbiter approve ID` or a later demo with `continueWaiting`. A run that
 * arbiter's repeated-call brake stopped (a real model asking for the same
 * lookup again and again) is followed by the customer's next request, as in
 * a chat; a hand-off to a person (`tool_failures`) ends the demo.
 *
 * @example
 * await runShopDemo({ write: console.log, approval: 'approve' });
 */
export async function runShopDemo({
  errorStyle = 'full',
  locale: requestedLocale = 'en',
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
  model,
  sessionId: requestedSession,
  continueWaiting = false,
  onSession,
  mountTools,
  cli = defaultCli,
}: ShopDemoOptions): Promise<ShopDemoResult> {
  // Looked up before anything is opened: a mistyped id must not leave a data directory behind.
  if (requestedSession !== undefined) await requireDemoSession({ dataDirectory, sessionId: requestedSession, cli });
  const open = (locale: Locale) =>
    openDemo({
      dataDirectory,
      locale,
      modelLatencyMs,
      cli,
      ...(model === undefined ? {} : { model }),
      ...(now === undefined ? {} : { now }),
      ...(mountTools === undefined ? {} : { mountTools }),
    });
  let demo = open(requestedLocale);
  try {
    const existing =
      requestedSession !== undefined
        ? await demo.sessions.load(requestedSession)
        : continueWaiting
          ? await findWaitingDemoSession(demo)
          : undefined;
    // A stored session goes on in the language, and so the script, its runs began in, whatever --lang says now.
    const locale = existing?.locale ?? requestedLocale;
    if (locale !== requestedLocale) {
      await demo.close();
      demo = open(locale);
    }
    const session = existing ?? (await demo.sessions.create({ principal: customer }));
    const sessionId = session.id;
    // A real model is told its job, as arbiter serve tells it; the scripted one follows its script.
    if (existing === undefined && model !== undefined) {
      await demo.sessions.append({ sessionId, messages: [{ role: 'system', content: shopSystemPrompts[locale] }] });
    }
    if (dataDirectory !== ':memory:') onSession?.(sessionId, locale);
    const runOptions = { ...demo.runOptions, describeError: errorDescriber(errorStyle) };

    /** Runs `work` (one run of the session, if any) with live output, then prints its transcript and stop reason. */
    const run = async <Result extends RunResult | undefined>(work: () => Promise<Result>): Promise<Result> => {
      const { result, progress } = await watchLive({ demo, live, writeRaw, tty, locale, work });
      if (result === undefined) return result;
      demo.saveRun({ result, sessionId });
      const state = demo.state(sessionId);
      for (const line of demo.transcript.render({ ...state, messages: result.messages, progress })) write(line);
      for (const line of progress.takeRest()) write(line);
      if (result.stopReason === 'awaiting_approval') {
        for (const line of demo.transcript.awaiting(
          demo.broker.listApprovals({ runId: result.runId, status: 'pending' }),
        ))
          write(line);
      }
      write(demo.transcript.summary(result));
      return result;
    };
    const auditLines = () => {
      for (const line of demo.transcript.auditLines(demo.audit.listAudit({ sessionId }))) write(line);
    };

    /**
     * Decides a suspended run's pending approvals as the demo was asked to and
     * resumes it; or, left pending, prints how to decide later.
     */
    const settle = async (runId: string): Promise<{ result: RunResult | undefined; leftPending: boolean }> => {
      const pending = demo.broker.listApprovals({ runId, status: 'pending' });
      if (pending.length === 0) return { result: undefined, leftPending: false };
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
        auditLines();
        for (const line of laterHint({
          locale,
          dataDirectory,
          cli,
          approvalIds: pending.map((record) => record.approvalId),
        }))
          write(line);
        return { result: undefined, leftPending: true };
      }
      let last: RunResult | undefined;
      for (const record of pending) {
        const resumed = await run(async () => {
          const outcome = await resumeAfterApproval({
            ...runOptions,
            sessions: demo.sessions,
            broker: demo.broker,
            approvalId: record.approvalId,
            decision,
            approver,
            ...(decision === 'reject' ? { reason: rejectReason[locale] } : {}),
          });
          // Waiting for the run's other approvals, or decided elsewhere meanwhile: no run to show.
          return outcome.status === 'resumed' ? outcome.result : undefined;
        });
        if (resumed !== undefined) last = resumed;
      }
      return { result: last, leftPending: false };
    };

    /** One customer request in the session: its run, then its approvals. `done` is false when the demo stops here. */
    const converse = async (userMessage: string): Promise<{ result: RunResult; done: boolean }> => {
      const result = await run(() => runSession({ ...runOptions, sessions: demo.sessions, sessionId, userMessage }));
      if (result.stopReason !== 'awaiting_approval') return { result, done: customerGoesOn(result.stopReason) };
      const settled = await settle(result.runId);
      return { result: settled.result ?? result, done: !settled.leftPending };
    };

    const refunds = refundRequest[locale];
    const requests = [refundStatusQuestion[locale], customerQuestion[locale], refunds] as const;
    let next = 0;
    if (existing !== undefined) {
      // What an earlier invocation printed is not printed again.
      demo.transcript.render({ ...demo.state(sessionId), messages: existing.messages });
    }
    if (existing?.activeRun !== undefined) {
      // The run this session left unfinished goes first; the customer then goes on from where it stopped.
      const { runId } = existing.activeRun;
      const waitingFor = demo.broker.listApprovals({ runId, status: 'pending' }).map((record) => record.approvalId);
      write(continuingLine({ locale, sessionId, waitingFor, found: requestedSession === undefined }));
      const settled = waitingFor.length > 0 ? await settle(runId) : { result: undefined, leftPending: false };
      if (settled.leftPending) return { runId, stopReason: 'awaiting_approval' };
      let resumed =
        settled.result ??
        (await run(() => runSession({ ...runOptions, sessions: demo.sessions, sessionId, resume: true })));
      if (resumed.stopReason === 'awaiting_approval') {
        const again = await settle(resumed.runId);
        if (again.leftPending) return resumed;
        resumed = again.result ?? resumed;
      }
      const asked = lastUserText(existing.messages);
      next = requests.indexOf(asked) + 1;
      if (next >= requests.length || !customerGoesOn(resumed.stopReason)) {
        auditLines();
        return resumed;
      }
    }
    for (const request of requests.slice(next, -1)) {
      const answered = await converse(request);
      if (!answered.done) return answered.result;
    }
    const refund = await converse(refunds);
    if (refund.done) auditLines();
    return refund.result;
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
  locale: fallbackLocale = 'en',
  dataDirectory = '.arbiter',
  write,
  cli = defaultCli,
}: {
  sessionId: string;
  /** Only for a session stored without its language: the run goes on in the one it began in. */
  locale?: Locale;
  dataDirectory?: string;
  write: (line: string) => void;
  /** As `ShopDemoOptions.cli`. */
  cli?: string;
}): Promise<RunResult> {
  const stored = await withDemoStore({
    dataDirectory,
    work: async (store) =>
      store === undefined
        ? undefined
        : (await new SqliteSessionStore({ database: store.database }).load(sessionId))?.locale,
  });
  const demo = openDemo({ dataDirectory, locale: stored ?? fallbackLocale, cli });
  try {
    const result = await runSession({ ...demo.runOptions, sessions: demo.sessions, sessionId, resume: true });
    demo.saveRun({ result, sessionId });
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

/** Runs `work` on the data directory's store (`arbiter.db`), or with `undefined` when there is none: creates nothing. */
async function withDemoStore<Result>({
  dataDirectory,
  work,
}: {
  dataDirectory: string;
  work: (store: SqliteStore | undefined) => Promise<Result>;
}): Promise<Result> {
  const path = join(dataDirectory, 'arbiter.db');
  if (!existsSync(path)) return work(undefined);
  const store = openSqliteStore({ path });
  try {
    return await work(store);
  } finally {
    store.close();
  }
}

/** The model name the demo's runs are recorded under: how a demo session is told from a server's. */
const demoModelName = (locale: Locale) => `scripted:${shopDemoScripts[locale].name}`;

/** Fails with a `ShopUsageError` unless the data directory's store holds `sessionId`; creates nothing. */
async function requireDemoSession({
  dataDirectory,
  sessionId,
  cli,
}: {
  dataDirectory: string;
  sessionId: string;
  cli: string;
}) {
  if (dataDirectory === ':memory:') {
    throw new ShopUsageError({
      message: `--session ${sessionId}: nothing is kept in memory, so there is no session to continue`,
    });
  }
  const found = await withDemoStore({
    dataDirectory,
    work: async (store) =>
      store !== undefined && (await new SqliteSessionStore({ database: store.database }).load(sessionId)) !== undefined,
  });
  if (found) return;
  throw new ShopUsageError({
    message:
      `no session ${sessionId} in ${join(dataDirectory, 'arbiter.db')}; run the demo without --session to start a ` +
      `new one (\`${cli} sessions list --data-dir ${dataDirectory}\` shows the stored ones)`,
  });
}

/** The most recent session a demo left waiting for approval, or `undefined`. */
async function findWaitingDemoSession(demo: ReturnType<typeof openDemo>) {
  const demoModels = new Set((['en', 'zh-CN'] as const).map(demoModelName));
  const pending = demo.broker.listApprovals({ status: 'pending' });
  for (const record of [...pending].sort((first, second) => second.createdAt - first.createdAt)) {
    if (record.sessionId === undefined) continue;
    const byDemo = demo.store
      .listRuns({ sessionId: record.sessionId })
      .some((run) => demoModels.has(run.model) && run.runId === record.runId);
    if (!byDemo) continue;
    const session = await demo.sessions.load(record.sessionId);
    if (session?.status === 'awaiting_approval' && session.activeRun?.runId === record.runId) return session;
  }
  return undefined;
}

/**
 * Whether the customer writes their next request after a run that stopped this way, as in a real chat: after
 * an answer, and after a run arbiter stopped because the model asked for the same call again and again (the
 * conversation is still the model's, in a new run with fresh brakes). Not after a hand-off to a person
 * (`tool_failures`), a call waiting for approval, a spent budget or an error.
 */
function customerGoesOn(stopReason: StopReason): boolean {
  return stopReason === 'completed' || stopReason === 'repeated_call';
}

function lastUserText(messages: readonly ChatMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role === 'user') return message.content ?? '';
  }
  return '';
}

/** Progress kept for the transcript, or none (printed live, or not at all). */
const noProgress: ProgressCollector = {
  listener: () => {},
  close: async () => {},
  take: () => [],
  takeRest: () => [],
};

/**
 * Runs `work` with the live output subscribed to the demo's events: on a
 * terminal progress prints as it happens (cleared before the transcript);
 * on a pipe it is collected, to print beside the calls in the transcript.
 */
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
}): Promise<{ result: Result; progress: ProgressCollector }> {
  if (live === 'off') return { result: await work(), progress: noProgress };
  const tools = demo.runOptions.tools;
  const collected = live === 'progress' && !tty ? createProgressCollector({ locale, tools }) : undefined;
  const printer =
    collected ??
    (live === 'ndjson'
      ? createNdjsonPrinter({ write: writeRaw, tools, locale })
      : createProgressPrinter({ write: writeRaw, locale, tty, tools }));
  const subscription = demo.runOptions.events.subscribe(printer.listener, { queueSize: 10_000 });
  try {
    return { result: await work(), progress: collected ?? noProgress };
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
  model: realModel,
  mountTools,
  cli = defaultCli,
}: {
  dataDirectory: string;
  locale: Locale;
  now?: () => Date;
  modelLatencyMs?: number;
  model?: Model;
  mountTools?: (registry: ToolRegistry) => void;
  cli?: string;
}) {
  const inMemory = dataDirectory === ':memory:';
  if (!inMemory) mkdirSync(dataDirectory, { recursive: true });
  // The shop's tools and gate rules (the refund hard cap) come from its one wiring module, as in eval and serve.
  const shop = openShopDomain({ dataDir: dataDirectory, locale, ...(now === undefined ? {} : { now }) });
  const store = openSqliteStore({ path: inMemory ? ':memory:' : join(dataDirectory, 'arbiter.db') });
  const database = store.database;
  const registry = new ToolRegistry();
  for (const tool of shop.tools) registry.register(tool);
  mountTools?.(registry);
  const model = realModel ?? new ScriptedModel({ script: shopDemoScripts[locale], latencyMs: modelLatencyMs });
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
    store,
    transcript: new ShopTranscript({ locale, undoHint: (entry) => undoHint({ locale, dataDirectory, entry, cli }) }),
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
    /** Records a run for `arbiter stats`, and as the demo's (how a later demo finds its sessions). */
    saveRun: ({ result, sessionId }: { result: RunResult; sessionId: string }) =>
      store.saveRun({
        runId: result.runId,
        sessionId,
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

/** How the command line names the data directory in a hint: nothing for the default. */
function dataDirectoryFlag(dataDirectory: string): string {
  return dataDirectory === '.arbiter' ? '' : ` --data-dir ${dataDirectory}`;
}

/** How a checkout runs the CLI (`npm run arbiter -- approve ID`). */
const defaultCli = 'npm run arbiter --';

function laterHint({
  locale,
  dataDirectory,
  approvalIds,
  cli,
}: {
  locale: Locale;
  dataDirectory: string;
  approvalIds: readonly string[];
  cli: string;
}): string[] {
  const indent = ' '.repeat(10);
  if (dataDirectory === ':memory:') {
    return [
      locale === 'zh-CN'
        ? `${indent}（内存模式：进程结束即丢失；用 --data-dir 保存后可稍后确认）`
        : `${indent}(in memory: nothing is kept; use --data-dir to decide later)`,
    ];
  }
  const flag = dataDirectoryFlag(dataDirectory);
  return approvalIds.flatMap((approvalId) =>
    locale === 'zh-CN'
      ? [`${indent}稍后确认：${cli} approve ${approvalId}${flag}（拒绝：加 --reject --reason "…"）`]
      : [`${indent}decide later: ${cli} approve ${approvalId}${flag}   (or: --reject --reason "…")`],
  );
}

/** The line under a reversible call that ran: the command that takes it back. */
function undoHint({
  locale,
  dataDirectory,
  entry,
  cli,
}: {
  locale: Locale;
  dataDirectory: string;
  entry: AuditRecord;
  cli: string;
}) {
  if (dataDirectory === ':memory:') {
    return locale === 'zh-CN'
      ? '可撤销（内存模式：用 --data-dir 保存后可用 arbiter undo 撤销）'
      : 'reversible (in memory: use --data-dir to take it back later with arbiter undo)';
  }
  const command = `${cli} undo ${entry.toolCallId} --run ${entry.runId}${dataDirectoryFlag(dataDirectory)}`;
  return locale === 'zh-CN' ? `可撤销：${command}` : `reversible; to take it back: ${command}`;
}

/** Says which stored session the demo goes on with, and why. */
function continuingLine({
  locale,
  sessionId,
  waitingFor,
  found,
}: {
  locale: Locale;
  sessionId: string;
  waitingFor: readonly string[];
  /** Found as the latest session waiting for approval, not named with `--session`. */
  found: boolean;
}): string {
  const ids = waitingFor.join(', ');
  if (locale === 'zh-CN') {
    const state = waitingFor.length > 0 ? `它的一轮对话在等待确认 ${ids}` : '它的一轮对话被中断，现在继续';
    return `继续会话 ${sessionId}：${state}${found ? '（要开始新会话，加 --new）' : ''}`;
  }
  const state = waitingFor.length > 0 ? `its run waits for approval ${ids}` : 'its run was interrupted and resumes now';
  return `continuing session ${sessionId}${found ? ' of an earlier demo' : ''}: ${state}${found ? ' (--new starts a new session instead)' : ''}`;
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
