/**
 * The task and the configurations of issue 14 ("performance as a user runs
 * it"), shared by the agent-paths benchmark, the leak check and the
 * profiling entry: an N-step task (N - 1 calls of one read-only tool, then
 * an answer) on a zero-latency model, driven by the AI SDK's
 * `generateText` or by arbiter the way an application runs it (tier gate,
 * SQLite audit log, events, optionally a file store and a context manager).
 *
 * Every configuration stamps the time at each model call, so a run yields
 * both its total time and the time of each step between two model calls.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import {
  type AssistantMessage,
  ContextManager,
  createTierGate,
  defineTool,
  EventBus,
  isWriteToolIn,
  type Model,
  runAgent,
  runSession,
  ToolRegistry,
} from '../src/index.js';
import type { Migration } from '../src/store/sqlite/migrations/migration.js';
import { SqliteAuditLog } from '../src/store/sqlite/sqlite-audit-log.js';
import { SqliteSessionStore } from '../src/store/sqlite/sqlite-session-store.js';
import { openSqliteStore, type SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { aiSdkTaskModel, orderId } from './ai-sdk-task-model.js';

export type PathName =
  | 'ai_sdk'
  | 'arbiter_memory'
  | 'arbiter_memory_context'
  | 'arbiter_durable'
  | 'arbiter_durable_context';

/** What each configuration is, as the table prints it. */
export const pathLabels: Record<PathName, string> = {
  ai_sdk: 'AI SDK generateText (in memory)',
  arbiter_memory: 'arbiter runAgent, tier gate + SQLite audit (:memory:)',
  arbiter_memory_context: '  same + ContextManager (128k window)',
  arbiter_durable: 'arbiter runSession, SQLite file, commit per step, gate + audit',
  arbiter_durable_context: '  same + ContextManager (128k window)',
};

/** The read-only tool's answer: the same object, so the same size, for both runtimes. */
export const orderResult = (id: string) => ({
  order_id: id,
  status: 'shipped',
  carrier: 'SF Express',
  events: 3,
});

const description = 'Look up one order. Not for shipments: use track_shipment.';

/** One run of a configuration, and the hrtime stamps of its model calls (one per step). */
export interface PathRun {
  /** Untimed set-up before each run (the durable path's new session). */
  prepare?: () => Promise<void>;
  run: () => Promise<void>;
  /** Cleared at the start of each run; one entry per model call. */
  readonly stamps: bigint[];
}

/** Everything one configuration keeps between runs (bus, store, audit), closed by `close`. */
export interface Path {
  readonly name: PathName;
  /** A run of `steps` steps; `run` may be called many times. */
  task(steps: number): PathRun;
  close(): void;
}

export function arbiterRegistry(): ToolRegistry {
  return new ToolRegistry().register(
    defineTool<{ order_id: string; note?: string }>({
      name: 'query_order',
      description,
      parameters: {
        type: 'object',
        properties: {
          order_id: { type: 'string', description: 'Order number', pattern: '^SO\\d{8}$', examples: ['SO20260901'] },
          note: { type: 'string', description: 'Optional note', maxLength: 200 },
        },
        required: ['order_id'],
        additionalProperties: false,
      },
      sideEffect: 'read',
      execute: ({ order_id }) => orderResult(order_id),
    }),
  );
}

/**
 * A zero-latency model that calls `query_order` until step `steps`, then
 * answers. It counts its own calls (reset with `reset`) instead of scanning
 * the conversation, so the model itself costs the same at every length.
 */
export function zeroLatencyModel(steps: number, stamps: bigint[]): Model & { reset(): void } {
  let step = 0;
  return {
    name: 'zero-latency',
    reset() {
      step = 0;
    },
    async generate() {
      stamps.push(process.hrtime.bigint());
      step += 1;
      const message: AssistantMessage =
        step < steps
          ? {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: `call_${step}`,
                  type: 'function',
                  function: { name: 'query_order', arguments: `{"order_id":"${orderId(step)}"}` },
                },
              ],
            }
          : { role: 'assistant', content: 'done' };
      return {
        message,
        usage: { inputTokens: 10, outputTokens: 5 },
        finishReason: message.tool_calls ? 'tool_calls' : 'stop',
      };
    },
  };
}

function aiSdkPath(): Path {
  const tools = {
    query_order: tool({
      description,
      inputSchema: z
        .object({
          order_id: z.string().regex(/^SO\d{8}$/),
          note: z.string().max(200).optional(),
        })
        .strict(),
      execute: async ({ order_id }) => orderResult(order_id),
    }),
  };
  return {
    name: 'ai_sdk',
    task(steps) {
      const stamps: bigint[] = [];
      return {
        stamps,
        run: async () => {
          stamps.length = 0;
          const model = aiSdkTaskModel(steps, () => stamps.push(process.hrtime.bigint()));
          const result = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(steps + 1) });
          if (result.steps.length !== steps) throw new Error(`AI SDK task ended after ${result.steps.length} steps`);
        },
      };
    },
    close() {},
  };
}

/** A bus with one fast subscriber, as a server or CLI has (its progress printer, its SSE fan-out). */
function busWithSubscriber(): EventBus {
  const events = new EventBus();
  events.subscribe(() => {});
  return events;
}

function contextFor(registry: ToolRegistry): ContextManager {
  return new ContextManager({ windowTokens: 128_000, isWriteTool: isWriteToolIn(registry) });
}

function checkResult(
  result: { stopReason: string; steps: number; error?: { message: string } },
  steps: number,
  path: string,
): void {
  if (result.stopReason !== 'completed' || result.steps !== steps) {
    const why = result.error === undefined ? '' : ` (${result.error.message})`;
    throw new Error(`${path}: the task ended ${result.stopReason}${why} after ${result.steps} steps, not ${steps}`);
  }
}

/** `runAgent` with the tier gate and a SQLite audit log on an in-memory database. */
export function arbiterMemoryPath({
  withContext = false,
  events = busWithSubscriber(),
}: {
  withContext?: boolean;
  events?: EventBus;
} = {}): Path & { readonly store: SqliteStore } {
  const registry = arbiterRegistry();
  const gate = createTierGate({ tools: registry });
  const store = openSqliteStore({ path: ':memory:' });
  const audit = new SqliteAuditLog({ database: store.database });
  const name = withContext ? 'arbiter_memory_context' : 'arbiter_memory';
  return {
    name,
    store,
    task(steps) {
      const stamps: bigint[] = [];
      const model = zeroLatencyModel(steps, stamps);
      return {
        stamps,
        run: async () => {
          stamps.length = 0;
          model.reset();
          const result = await runAgent({
            model,
            tools: registry,
            messages: [{ role: 'user', content: 'go' }],
            limits: { maxSteps: steps + 1 },
            gate,
            audit,
            events,
            ...(withContext ? { context: contextFor(registry) } : {}),
          });
          checkResult(result, steps, name);
        },
      };
    },
    close() {
      store.close();
    },
  };
}

/**
 * `runSession` on a SQLite file in a temporary directory (WAL,
 * `synchronous = NORMAL`): every step committed before the next starts,
 * the tier gate, the audit log in the same file. Each run gets a new
 * session, created before the run starts (a user's message goes to a
 * session that exists).
 */
export function arbiterDurablePath({
  withContext = false,
  events = busWithSubscriber(),
  inMemoryStore = false,
  migrations,
  checkpoints,
}: {
  withContext?: boolean;
  events?: EventBus;
  /** The same store on `:memory:` (the leak check: SQLite's memory is outside the JS heap). */
  inMemoryStore?: boolean;
  /** The schema to open (e.g. without the audit hash chain, to measure what it costs). Default: all of it. */
  migrations?: readonly Migration[];
  /** `'inline'`: no checkpoint thread (the step guard counts the WAL's pages). Default: the store's own. */
  checkpoints?: 'inline';
} = {}): Path & { readonly store: SqliteStore; readonly directory: string } {
  const directory = mkdtempSync(join(tmpdir(), 'arbiter-paths-bench-'));
  const store = openSqliteStore({
    path: inMemoryStore ? ':memory:' : join(directory, 'arbiter.db'),
    ...(migrations === undefined ? {} : { migrations }),
    ...(checkpoints === undefined ? {} : { checkpoints }),
  });
  const sessions = new SqliteSessionStore({ database: store.database });
  const registry = arbiterRegistry();
  const gate = createTierGate({ tools: registry });
  const audit = new SqliteAuditLog({ database: store.database });
  const name = withContext ? 'arbiter_durable_context' : 'arbiter_durable';
  let sessionCount = 0;
  return {
    name,
    store,
    directory,
    task(steps) {
      const stamps: bigint[] = [];
      const model = zeroLatencyModel(steps, stamps);
      let sessionId = '';
      return {
        stamps,
        prepare: async () => {
          sessionCount += 1;
          sessionId = (await sessions.create({ sessionId: `bench-${sessionCount}` })).id;
        },
        run: async () => {
          stamps.length = 0;
          model.reset();
          const result = await runSession({
            sessions,
            sessionId,
            userMessage: 'go',
            model,
            tools: registry,
            limits: { maxSteps: steps + 1 },
            gate,
            audit,
            events,
            ...(withContext ? { context: contextFor(registry) } : {}),
          });
          checkResult(result, steps, name);
        },
      };
    },
    close() {
      store.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Steps at the end of a run whose times make "step at length". */
export const tailWindow = 19;

/** One timed run: its whole time, and the time of each of its last `tailWindow` steps. */
export interface PathSample {
  readonly totalNanoseconds: number;
  /** Nanoseconds between two model calls, for each of the last `tailWindow` steps. */
  readonly tailStepNanoseconds: readonly number[];
  /** The process's CPU time during the run (every thread; the other configurations' workers wait meanwhile), µs. */
  readonly cpuMicroseconds: number;
}

/** Prepares (untimed) and times one run of `task`, which must make `steps` model calls. */
export async function samplePathRun(task: PathRun, steps: number): Promise<PathSample> {
  await task.prepare?.();
  const cpuBefore = process.cpuUsage();
  const start = process.hrtime.bigint();
  await task.run();
  const totalNanoseconds = Number(process.hrtime.bigint() - start);
  const cpu = process.cpuUsage(cpuBefore);
  const { stamps } = task;
  if (stamps.length !== steps) throw new Error(`expected ${steps} model calls, saw ${stamps.length}`);
  const tailStepNanoseconds: number[] = [];
  for (let index = steps - tailWindow; index < steps; index += 1) {
    tailStepNanoseconds.push(Number((stamps[index] as bigint) - (stamps[index - 1] as bigint)));
  }
  return { totalNanoseconds, tailStepNanoseconds, cpuMicroseconds: cpu.user + cpu.system };
}

export function createPath(name: PathName): Path {
  switch (name) {
    case 'ai_sdk':
      return aiSdkPath();
    case 'arbiter_memory':
      return arbiterMemoryPath();
    case 'arbiter_memory_context':
      return arbiterMemoryPath({ withContext: true });
    case 'arbiter_durable':
      return arbiterDurablePath();
    case 'arbiter_durable_context':
      return arbiterDurablePath({ withContext: true });
  }
}
