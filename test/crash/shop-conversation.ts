/**
 * The conversation the crash test drives: three customer turns in the demo
 * shop, each with parallel reads and `add_order_note` writes, on a scripted
 * model whose answers depend only on the conversation (so a re-asked model
 * call gives the same answer, with the same tool call ids). Shared by the
 * driver process and the test's reference run.
 *
 * What "executed" means here: a tool call is executed when its effect is
 * committed. For `add_order_note` that is the note row, which commits in one
 * shop-database transaction with a row keyed by the tool call id (the tool's
 * own idempotency: a call re-run after a crash finds its key and replays the
 * stored result instead of adding a second note). For a read it is its
 * result recorded in the run journal; a read killed before that changed
 * nothing and simply runs again on resume. A tool body that starts while the
 * journal already holds that call's result is a double execution: the driver
 * logs it as `DUPLICATE`, and the test requires none.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { openShopDatabase, type ShopDatabase } from '../../examples/shop/shop-database.js';
import { createShopTools } from '../../examples/shop/shop-tools.js';
import type { AssistantMessage } from '../../src/core/chat-message.js';
import type { RunJournal } from '../../src/core/run-journal.js';
import type { RunResult } from '../../src/loop/run-agent.js';
import { runSession } from '../../src/loop/run-session.js';
import type { Model } from '../../src/models/model.js';
import type { SessionStore } from '../../src/store/session-store.js';
import { SqliteSessionStore } from '../../src/store/sqlite/sqlite-session-store.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { ToolRegistry } from '../../src/tools/tool-registry.js';
import type { ToolDefinition } from '../../src/tools/tool-types.js';

export const crashSessionId = 'crash-session';
export const principal = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] };
const fixedNow = () => new Date('2026-09-10T08:00:00.000Z');

type PlannedStep = readonly (readonly [tool: string, args: Record<string, unknown>])[] | string;

/** The user's messages and, per turn, what the model does at each step. */
export const plan: readonly { readonly user: string; readonly steps: readonly PlannedStep[] }[] = [
  {
    user: 'Where are my orders SO20260901 and SO20260902?',
    steps: [
      [
        ['query_order', { order_id: 'SO20260901' }],
        ['query_order', { order_id: 'SO20260902' }],
        ['track_shipment', { order_id: 'SO20260901' }],
      ],
      [
        ['add_order_note', { order_id: 'SO20260901', note: 'crash-note t0s1c0: ring twice' }],
        ['query_refund', { order_id: 'SO20260902' }],
      ],
      'SO20260901 is on its way with SF Express; SO20260902 was delivered. I left a note for the courier.',
    ],
  },
  {
    user: 'Leave the parcel of SO20260904 at reception, and tell SO20260901 the same.',
    steps: [
      [['query_order', { order_id: 'SO20260904' }]],
      [
        ['add_order_note', { order_id: 'SO20260904', note: 'crash-note t1s1c0: leave at reception' }],
        ['add_order_note', { order_id: 'SO20260901', note: 'crash-note t1s1c1: leave at reception' }],
        ['track_shipment', { order_id: 'SO20260904' }],
      ],
      'Both notes are on the orders: the parcels will be left at reception.',
    ],
  },
  {
    user: 'Any refunds on SO20260902?',
    steps: [
      [
        ['query_refund', { order_id: 'SO20260902' }],
        ['track_shipment', { order_id: 'SO20260902' }],
      ],
      [['add_order_note', { order_id: 'SO20260902', note: 'crash-note t2s1c0: customer asked about refunds' }]],
      'One refund of 79.00 yuan on SO20260902 is complete.',
    ],
  },
];

/** Every note the plan adds, one per `add_order_note` call. */
export const plannedNotes = plan.flatMap((turn) =>
  turn.steps.flatMap((step) =>
    typeof step === 'string'
      ? []
      : step.filter(([tool]) => tool === 'add_order_note').map(([, args]) => String(args.note)),
  ),
);

export interface DriverOptions {
  readonly directory: string;
  /** Where execution lines are appended, synchronously. */
  readonly logFile: string;
  /** SIGKILLs this process at the n-th crash point (1-based). */
  readonly crashAt?: number;
  readonly tokenBudget?: number;
  /** How many turns of the plan to run. */
  readonly turns?: number;
  /** Sleeps a few milliseconds in each model call and tool, so kills land everywhere. Default true. */
  readonly latency?: boolean;
  /** Called once the stores are open, before the first run. */
  readonly onReady?: () => void;
}

/**
 * Runs (or resumes) the planned conversation to its end: resumes the active
 * run if there is one, then starts the next planned turn, until all are done.
 * Returns the results of the runs this process made.
 */
export async function driveConversation(options: DriverOptions): Promise<RunResult[]> {
  const { directory, logFile, latency = true } = options;
  const log = (line: string) => appendFileSync(logFile, `${line}\n`);
  let points = 0;
  const point = (where: string) => {
    points += 1;
    if (options.crashAt === points) {
      log(`crash ${points} ${where}`);
      process.kill(process.pid, 'SIGKILL');
    }
  };
  const shop = openShopDatabase({ path: join(directory, 'shop.db') });
  const store = openSqliteStore({ path: join(directory, 'arbiter.db') });
  shop.connection.exec(
    'CREATE TABLE IF NOT EXISTS crash_note_keys (tool_call_id TEXT PRIMARY KEY, result TEXT NOT NULL)',
  );
  const sessions = crashingStore(new SqliteSessionStore({ database: store.database }), point);
  const tools = instrumentedTools({ shop, arbiter: store, log, point, latency });
  const model = plannedModel({ log, latency });
  const results: RunResult[] = [];
  try {
    if ((await sessions.load(crashSessionId)) === undefined) {
      await sessions.create({ sessionId: crashSessionId, principal }).catch(async (error: unknown) => {
        if ((await sessions.load(crashSessionId)) === undefined) throw error;
      });
    }
    log('ready');
    options.onReady?.();
    const turns = options.turns ?? plan.length;
    for (;;) {
      const session = await sessions.load(crashSessionId);
      if (session === undefined) throw new Error('the crash session vanished');
      const common = {
        sessions,
        sessionId: crashSessionId,
        model,
        tools,
        principal,
        limits: { maxSteps: 10, ...(options.tokenBudget === undefined ? {} : { tokenBudget: options.tokenBudget }) },
      };
      let result: RunResult;
      if (session.activeRun !== undefined) {
        result = await runSession({ ...common, resume: true });
      } else {
        const done = session.messages.filter((message) => message.role === 'user').length;
        if (done >= turns) break;
        result = await runSession({ ...common, userMessage: plan[done]?.user ?? '' });
      }
      results.push(result);
      log(`result ${JSON.stringify({ stopReason: result.stopReason, steps: result.steps, usage: result.usage })}`);
      if (result.stopReason === 'error') throw result.error?.cause ?? new Error('run failed');
      if (result.stopReason !== 'completed') break;
    }
    log(`done ${points}`);
    return results;
  } finally {
    store.close();
    shop.close();
  }
}

/** The store, with a crash point after every write, so a test can kill the process at each one. */
function crashingStore(sessions: SessionStore, point: (where: string) => void): SessionStore {
  const after =
    <Args extends unknown[], Result>(name: string, write: (...args: Args) => Promise<Result>) =>
    async (...args: Args): Promise<Result> => {
      const result = await write(...args);
      point(name);
      return result;
    };
  return {
    create: (options) => sessions.create(options),
    load: (sessionId) => sessions.load(sessionId),
    list: (options) => sessions.list(options),
    append: after('append', (request) => sessions.append(request)),
    setSlots: after('setSlots', (request) => sessions.setSlots(request)),
    getSlots: (sessionId) => sessions.getSlots(sessionId),
    fork: (request) => sessions.fork(request),
    purge: (request) => sessions.purge(request),
    beginRun: after('beginRun', (request) => sessions.beginRun(request)),
    endRun: after('endRun', (request) => sessions.endRun(request)),
    journal: (request): RunJournal => {
      const journal = sessions.journal(request);
      return {
        findToolResult: (runId, toolCallId) => journal.findToolResult(runId, toolCallId),
        recordToolResult: async (runId, result) => {
          await journal.recordToolResult(runId, result);
          point(`recordToolResult ${result.toolCallId}`);
        },
        commitStep: async (commit) => {
          await journal.commitStep(commit);
          point(`commitStep ${commit.appended.length}`);
        },
      };
    },
  };
}

/**
 * The shop's tools, each logging its executions and checking the journal for
 * a result already recorded; `add_order_note` commits its note together with
 * a key row, so a re-run after a crash replays instead of adding again.
 */
function instrumentedTools({
  shop,
  arbiter,
  log,
  point,
  latency,
}: {
  shop: ShopDatabase;
  arbiter: SqliteStore;
  log: (line: string) => void;
  point: (where: string) => void;
  latency: boolean;
}): ToolRegistry {
  const recorded = arbiter.database.prepare('SELECT 1 FROM tool_results WHERE run_id = ? AND tool_call_id = ?');
  const findKey = shop.connection.prepare('SELECT result FROM crash_note_keys WHERE tool_call_id = ?');
  const saveKey = shop.connection.prepare('INSERT INTO crash_note_keys (tool_call_id, result) VALUES (?, ?)');
  const registry = new ToolRegistry();
  for (const tool of createShopTools({ database: shop, now: fixedNow })) {
    const wrapped: ToolDefinition = {
      ...tool,
      execute: async (args, context) => {
        if (recorded.get(context.runId, context.toolCallId) !== undefined) log(`DUPLICATE ${context.toolCallId}`);
        log(`exec ${context.toolCallId} ${tool.name}`);
        if (latency) await sleep(3 + Math.random() * 7);
        point(`inside ${context.toolCallId}`);
        if (tool.name !== 'add_order_note') return tool.execute(args, context);
        const outcome = shop.transaction(() => {
          const existing = findKey.get(context.toolCallId) as { result: string } | undefined;
          if (existing !== undefined) return { replayed: true, result: JSON.parse(existing.result) as unknown };
          const result = tool.execute(args, context) as unknown;
          saveKey.run(context.toolCallId, JSON.stringify(result));
          return { replayed: false, result };
        });
        log(`${outcome.replayed ? 'replay' : 'commit'} ${context.toolCallId}`);
        point(`committed ${context.toolCallId}`);
        return outcome.result;
      },
    };
    registry.register(wrapped);
  }
  return registry;
}

/** The scripted model: the step is the number of assistant messages since the last user message. */
function plannedModel({ log, latency }: { log: (line: string) => void; latency: boolean }): Model {
  return {
    name: 'planned',
    async generate({ messages, signal }) {
      signal?.throwIfAborted();
      const turn = messages.filter((message) => message.role === 'user').length - 1;
      const lastUser = messages.findLastIndex((message) => message.role === 'user');
      const step = messages.slice(lastUser + 1).filter((message) => message.role === 'assistant').length;
      log(`model t${turn}s${step}`);
      if (latency) await sleep(4 + Math.random() * 8);
      const planned = plan[turn]?.steps[step];
      const message: AssistantMessage =
        planned === undefined
          ? { role: 'assistant', content: `UNEXPECTED model call at turn ${turn}, step ${step}` }
          : typeof planned === 'string'
            ? { role: 'assistant', content: planned }
            : {
                role: 'assistant',
                content: null,
                tool_calls: planned.map(([tool, args], index) => ({
                  id: `t${turn}s${step}c${index}`,
                  type: 'function' as const,
                  function: { name: tool, arguments: JSON.stringify(args) },
                })),
              };
      return {
        message,
        usage: { inputTokens: 10 * messages.length, outputTokens: 5 },
        finishReason: message.tool_calls === undefined ? 'stop' : 'tool_calls',
      };
    },
  };
}

/** The session's counters as a concurrent reader sees them. */
export interface Observation {
  readonly version: number;
  readonly stepCount: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly messageCount: number;
  readonly activeRunId: string | null;
  readonly runSteps: number;
  readonly runInputTokens: number;
}

/** Reads the counters of the crash session, or undefined before it exists. */
export function observe(database: Database.Database): Observation | undefined {
  return database
    .prepare(
      `SELECT version, step_count AS stepCount, input_tokens AS inputTokens, output_tokens AS outputTokens,
         message_count AS messageCount, active_run_id AS activeRunId, run_steps AS runSteps,
         run_input_tokens AS runInputTokens
       FROM sessions WHERE session_id = ?`,
    )
    .get(crashSessionId) as Observation | undefined;
}
