import type { Awaitable } from '../core/awaitable.js';
import type { ChatMessage } from '../core/chat-message.js';
import type { DurableSteps } from '../core/durable-steps.js';
import type { Locale } from '../core/locale.js';
import type { Principal } from '../core/principal.js';
import type { RunUsage } from '../core/run-usage.js';
import type { StopReason } from '../core/stop-reason.js';
import { EventBus } from '../events/event-bus.js';
import type { EventLog } from '../events/event-log.js';
import { persistEvents } from '../events/persist-events.js';
import type { RunAgentOptions } from '../loop/run-agent.js';
import type { NewServerRun, ServerRun, ServerRunStatus } from '../store/server-run.js';
import { runDurableAgent } from './run-durable-agent.js';

/** What starts a run in an engine: plain JSON, the workflow's input. */
export interface DurableRunInput {
  /** The run's id: the engine's workflow id (DBOS), invocation key (Restate) or workflow id (Temporal). */
  readonly runId: string;
  /** The session the run belongs to: one run per session at a time. */
  readonly sessionId: string;
  /** Who the run acts for; context-bound parameters and the four-eyes rule read it. */
  readonly principal: Principal;
  /** The conversation so far, ending with the user's new message. */
  readonly messages: readonly ChatMessage[];
  readonly locale?: Locale;
}

/** What a run in an engine returns: plain JSON, the workflow's output. */
export interface DurableRunSummary {
  readonly runId: string;
  readonly stopReason: StopReason;
  readonly text: string | undefined;
  /** Only what this run appended to the conversation. */
  readonly newMessages: readonly ChatMessage[];
  readonly steps: number;
  readonly usage: RunUsage;
  readonly lastSeq: number;
}

/**
 * Where an engine's run is recorded for arbiter's approval API and the
 * desk: the server's runs (`backend.serverRuns` on PostgreSQL). The run is
 * recorded under a lease held by the engine, so no `arbiter serve` node
 * claims it, and with its final status once it ends.
 */
export interface EngineRunRecords {
  insert(run: NewServerRun, lease?: { readonly owner: string; readonly leaseMs: number }): Awaitable<ServerRun>;
  find(runId: string): Awaitable<ServerRun | undefined>;
  setStatus(runId: string, status: ServerRunStatus): Awaitable<unknown>;
}

/**
 * Everything a run needs that is not JSON, built once per worker process:
 * the model, the tools, and arbiter's deciders (gate, approvals broker,
 * idempotency store, audit log), which keep deciding inside every step.
 */
export interface EngineAgentOptions
  extends Omit<
    RunAgentOptions,
    | 'messages'
    | 'runId'
    | 'principal'
    | 'sessionId'
    | 'steps'
    | 'events'
    | 'journal'
    | 'resume'
    | 'handover'
    | 'heartbeatMs'
    | 'locale'
  > {
  /** Arbiter's event log: every event of the run is written here before its step is recorded, so a stream client sees each seq once. */
  readonly log: EventLog;
  /** Where the run is recorded for the approval API and the desk. Default: not recorded. */
  readonly runs?: EngineRunRecords;
  /** How long the run waits in the engine for its approvals, in total. Default seven days. */
  readonly approvalWaitMs?: number;
}

/** The engine's own primitives, which `runInEngine` turns into arbiter's `DurableSteps`. */
export interface EnginePrimitives {
  /** The engine's step: `DBOS.runStep`, Restate's `ctx.run`, a Temporal activity. */
  step<Result>(name: string, run: () => Promise<Result>): Promise<Result>;
  now(): Awaitable<number>;
  newId(): Awaitable<string>;
  waitForSignal<Payload>(options: {
    readonly topic: string;
    readonly timeoutMs: number;
  }): Awaitable<Payload | undefined>;
}

/** The lease owner an engine's runs are recorded under: no `arbiter serve` node claims them. */
export const engineLeaseOwner = (engine: string): string => `engine:${engine}`;

/**
 * The body of one run's workflow, whichever the engine: the run recorded
 * for the approval API (a step), arbiter's loop through the engine's steps
 * with approvals waited for as signals (`runDurableAgent`), every event
 * written to arbiter's event log before the step that emitted it is
 * recorded (a replayed step emits nothing, and the numbering moves past
 * it), the final status recorded (a step). No heartbeat: a timer's events
 * would number differently on replay.
 *
 * @example
 * const workflow = (input: DurableRunInput) => runInEngine({ engine: 'dbos', input, agent, primitives });
 */
export async function runInEngine({
  engine,
  input,
  agent,
  primitives,
}: {
  /** The engine's name, for the run's lease owner. */
  engine: string;
  input: DurableRunInput;
  agent: EngineAgentOptions;
  primitives: EnginePrimitives;
}): Promise<DurableRunSummary> {
  const { log, runs, approvalWaitMs, ...options } = agent;
  const { runId, sessionId, principal, messages, locale = 'en' } = input;
  const events = new EventBus();
  // The highest seq this execution wrote; the log is asked once, for what an earlier execution (a crashed worker) wrote.
  let appended = 0;
  let published: number | undefined;
  const tracked: EventLog = {
    append: async (batch) => {
      await log.append(batch);
      for (const event of batch) if (event.runId === runId && event.seq > appended) appended = event.seq;
    },
    readEvents: (options) => log.readEvents(options),
    lastSeq: (id) => log.lastSeq(id),
    prune: (options) => log.prune(options),
  };
  const persisted = persistEvents({ bus: events, log: tracked, tools: options.tools, locale, deltaWindowMs: 0 });
  const steps: DurableSteps = {
    step: (name, run) =>
      primitives.step(name, async () => {
        const result = await run();
        await persisted.idle();
        return result;
      }),
    publishedSeq: async () => {
      await persisted.idle();
      published ??= await log.lastSeq(runId);
      return Math.max(published, appended);
    },
    now: () => primitives.now(),
    newId: () => primitives.newId(),
    waitForSignal: async (options) => {
      // Everything before the wait is in the log before the worker may stop for days.
      await persisted.idle();
      return primitives.waitForSignal(options);
    },
  };
  try {
    if (runs !== undefined) {
      await primitives.step('arbiter:record-run', async () => {
        if ((await runs.find(runId)) !== undefined) return true;
        await runs.insert(
          { runId, sessionId, tenantId: principal.tenantId, principal, locale, messageOffset: 0 },
          { owner: engineLeaseOwner(engine), leaseMs: (approvalWaitMs ?? sevenDaysMs) + oneDayMs },
        );
        return true;
      });
    }
    const result = await runDurableAgent({
      ...options,
      runId,
      sessionId,
      principal,
      messages,
      locale,
      steps,
      events,
      heartbeatMs: 0,
      ...(approvalWaitMs === undefined ? {} : { approvalWaitMs }),
    });
    await persisted.idle();
    if (runs !== undefined) {
      await primitives.step('arbiter:finish-run', async () => {
        await runs.setStatus(runId, result.stopReason);
        return result.stopReason;
      });
    }
    return {
      runId,
      stopReason: result.stopReason,
      text: result.text,
      newMessages: result.newMessages,
      steps: result.steps,
      usage: result.usage,
      lastSeq: result.lastSeq,
    };
  } finally {
    persisted();
  }
}

const oneDayMs = 24 * 60 * 60 * 1000;
const sevenDaysMs = 7 * oneDayMs;
