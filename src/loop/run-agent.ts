import type { PinnedState } from '../context/compress-context.js';
import type { ContextManager } from '../context/context-manager.js';
import type { ChatMessage, ToolCall } from '../core/chat-message.js';
import type { DurableSteps } from '../core/durable-steps.js';
import type { Locale } from '../core/locale.js';
import type { Principal } from '../core/principal.js';
import type { RunJournal } from '../core/run-journal.js';
import type { RunUsage } from '../core/run-usage.js';
import type { StopReason } from '../core/stop-reason.js';
import { RunHandedOverError } from '../errors/run-handed-over-error.js';
import type { EventBus } from '../events/event-bus.js';
import { startHeartbeat } from '../events/start-heartbeat.js';
import type { ApprovalBroker } from '../gate/approval-broker.js';
import type { AuditLog } from '../gate/audit-log.js';
import type { IdempotencyStore } from '../gate/idempotency-store.js';
import type { ToolGate } from '../gate/tool-gate.js';
import type { Model } from '../models/model.js';
import type { PriceTable } from '../models/pricing.js';
import type { RoutingOptions } from '../routing/routing-options.js';
import type { ToolRegistry, ToolSet } from '../tools/tool-registry.js';
import { timeOrderedId } from '../util/time-ordered-id.js';
import { commitStep } from './commit-step.js';
import type { DescribeToolError } from './describe-tool-error.js';
import { failRun } from './fail-run.js';
import { finishRun } from './finish-run.js';
import { mountTools } from './mount-tools.js';
import type { PendingApproval } from './pending-approval.js';
import { replayBrakes } from './replay-brakes.js';
import { routeStepTools } from './route-step-tools.js';
import { budgetStop, spentBudget } from './run-budgets.js';
import { createRunProgress } from './run-progress.js';
import { createRunRuntime } from './run-runtime.js';
import { settleBatch } from './settle-batch.js';
import { takeModelTurn } from './take-model-turn.js';
import { unansweredCalls } from './unanswered-calls.js';

/** The brakes of one run. Whichever trips first stops it. */
export interface RunLimits {
  /** Model calls per run. Default 10. */
  readonly maxSteps?: number;
  /** Input + output tokens per run, from the usage the model reports. Default unlimited. */
  readonly tokenBudget?: number;
  /** Money per run, in the price table's currency (needs `prices`). Default unlimited. */
  readonly costBudget?: number;
  /** Wall-clock time per run. Default unlimited. */
  readonly timeLimitMs?: number;
  /** How often the same (tool, canonical arguments) may run; the next is refused. Default 2. */
  readonly maxIdenticalCalls?: number;
  /** Failures of one tool in a row before the run hands off to a person. Default 2. */
  readonly maxConsecutiveFailures?: number;
}

export interface RunAgentOptions {
  readonly model: Model;
  /** A registry (all tools, or the `groups` given) or an already mounted set. */
  readonly tools: ToolRegistry | ToolSet;
  /** Tool groups to mount, fixed or per step (e.g. `lookup` first, `act` once confirmed). */
  readonly groups?: readonly string[] | ((state: { readonly step: number }) => readonly string[]);
  /**
   * The conversation so far: ending with the user's new message, or, to
   * resume a run, with an assistant message whose tool calls are not all
   * answered yet (those are run first, their recorded results reused).
   */
  readonly messages: readonly ChatMessage[];
  readonly principal?: Principal;
  readonly sessionId?: string;
  readonly runId?: string;
  readonly limits?: RunLimits;
  /** Counters of an interrupted run being resumed: budgets count what was already spent. */
  readonly resume?: {
    readonly steps: number;
    readonly usage: RunUsage;
    readonly lastSeq?: number;
    readonly cost?: number;
    /**
     * The approvals whose `approval:required` the run's event log already
     * holds. A resumed run that stops again on a pending approval announces
     * it once more unless it is here: the process that asked may have died
     * between recording the approval and writing the event. Default: none.
     */
    readonly announcedApprovals?: ReadonlySet<string>;
  };
  /** Prices per model, to put a cost on the run and enforce `limits.costBudget`. */
  readonly prices?: PriceTable;
  readonly signal?: AbortSignal;
  /**
   * When it fires, the run stops at its next committed step without ending
   * (it throws `RunHandedOverError`: no `run:end`, nothing aborted), so a
   * resume in another process continues it: a node handing its runs over as
   * it shuts down. Work under way (a model call, a batch of tool calls)
   * finishes and is committed first.
   */
  readonly handover?: AbortSignal;
  readonly events?: EventBus;
  readonly gate?: ToolGate;
  /** Decides calls the gate holds for a person. Default: deny them all. */
  readonly approvals?: ApprovalBroker;
  readonly idempotency?: IdempotencyStore;
  /**
   * Every call is recorded here. An audit log that answers `findCalls`
   * (`SqliteAuditLog`) is also the history rules read (`context.history`);
   * with any other (or none), the history is this run's own calls.
   */
  readonly audit?: AuditLog;
  /** Where steps and tool results are written down so a restart loses nothing. */
  readonly journal?: RunJournal;
  /**
   * The durable engine the run executes inside (DBOS, Restate, Temporal):
   * each model turn and each validated, gated tool execution runs as one of
   * its named steps, recorded and handed back on replay (give the run's id:
   * `runDurableAgent` makes it through the engine). Default: arbiter's own path, where the journal records
   * each step and a lease keeper resumes the run (see `DurableSteps`).
   */
  readonly steps?: DurableSteps;
  readonly locale?: Locale;
  /** Words a failed call's error for the model (its tool message). Default: arbiter's whole message. */
  readonly describeError?: DescribeToolError;
  /** Default per-call tool time limit in milliseconds (a tool's own `timeoutMs` wins). */
  readonly toolTimeoutMs?: number;
  /** How many `read` calls of one turn may run at once. Default 4. */
  readonly maxParallelReads?: number;
  /** Counts each request and compresses it past the threshold (see `ContextManager`). Default: none. */
  readonly context?: ContextManager;
  /** What compression keeps verbatim: confirmed slots, refused options, unfinished steps. */
  readonly pinned?: PinnedState;
  /** A `heartbeat` event every this many milliseconds while the run is alive; 0 turns it off. Default 5000. */
  readonly heartbeatMs?: number;
  /**
   * Send each model call only the tools its request needs, chosen from the
   * mounted ones (see `RoutingOptions`). Default: every mounted tool.
   */
  readonly routing?: RoutingOptions;
}

export interface RunResult {
  readonly runId: string;
  readonly stopReason: StopReason;
  /** The last assistant text of the run, if any. */
  readonly text: string | undefined;
  /** The whole conversation after the run. */
  readonly messages: readonly ChatMessage[];
  /** Only what this run appended. */
  readonly newMessages: readonly ChatMessage[];
  readonly steps: number;
  readonly usage: RunUsage;
  readonly durationMs: number;
  /** What the run cost, when `prices` has the model; otherwise undefined. */
  readonly cost: number | undefined;
  /** The seq of the run's last event, to continue numbering when the run is resumed. */
  readonly lastSeq: number;
  /**
   * With `awaiting_approval`: every call the run waits for a person about, with its approval id (decide with
   * `resumeAfterApproval`); empty for any other stop.
   */
  readonly pendingApprovals: readonly PendingApproval[];
  /** Set when `stopReason` is `error`: an infrastructure failure, for the operator, never for the model. */
  readonly error?: { readonly code: string; readonly message: string; readonly cause: unknown };
}

/**
 * The agent loop. Calls the model, runs every tool call it proposes through
 * the tool runner, answers each `tool_call_id` with exactly one tool message
 * in order, and stops on the first brake: an answer, the step limit, the
 * token budget, the deadline, an abort, a repeated call, or a tool failing
 * in a row.
 *
 * @example
 * const result = await runAgent({
 *   model,
 *   tools: registry,
 *   messages: [{ role: 'user', content: 'Where is my order SO20260901?' }],
 *   principal: { tenantId: 'shop', userId: 'C1001', roles: ['customer'] },
 *   limits: { maxSteps: 8, tokenBudget: 20_000 },
 * });
 * if (result.stopReason === 'tool_failures') handOff(result);
 */
export async function runAgent(options: RunAgentOptions): Promise<RunResult> {
  const runtime = createRunRuntime(options, options.runId ?? timeOrderedId());
  const { emitter, control, texts } = runtime;
  const progress = createRunProgress(options);
  // `emit`, not `emitDraft`: once per run, and keeping `emitDraft` to the four shapes of event every step emits
  // (see `finishRun`).
  emitter.emit({ type: 'run:start', sessionId: options.sessionId, model: options.model.name });
  const stopHeartbeat = startHeartbeat({ emitter, intervalMs: options.heartbeatMs ?? 5_000 });
  try {
    // A run that crashed after committing its answer but before it was marked ended is already complete.
    if (options.resume !== undefined && endsWithAnswer(progress.conversation)) {
      return await finishRun(runtime, progress, 'completed');
    }
    if (options.resume !== undefined) await replayBrakes(runtime, options.tools, progress.conversation);
    const unanswered = unansweredCalls(progress.conversation);
    if (unanswered.length > 0) {
      handOverIfAsked(options, runtime.runId, progress.steps);
      const stop = await settleBatch(runtime, progress, unanswered, mountTools(options, Math.max(progress.steps, 1)));
      if (stop !== undefined) return await finishRun(runtime, progress, stop);
    }
    for (;;) {
      const before = control.reason ?? budgetStop(runtime, progress);
      if (before !== undefined) return await finishRun(runtime, progress, before);
      handOverIfAsked(options, runtime.runId, progress.steps);
      progress.steps += 1;
      let tools: ToolSet;
      let calls: readonly ToolCall[];
      try {
        const mounted = mountTools(options, progress.steps);
        tools = options.routing === undefined ? mounted : await routeStepTools(runtime, progress, mounted);
        calls = (await takeModelTurn(runtime, progress, tools)).message.tool_calls ?? [];
      } catch (error) {
        if (control.reason !== undefined) return await finishRun(runtime, progress, control.reason);
        throw error;
      }
      if (calls.length === 0) return await finishRun(runtime, progress, 'completed');
      const spent = spentBudget(runtime, progress);
      if (spent !== undefined) {
        const skipped = texts.skipped({ reason: spent });
        await commitStep(
          runtime,
          progress,
          calls.map((call): ChatMessage => ({ role: 'tool', tool_call_id: call.id, content: skipped })),
        );
        return await finishRun(runtime, progress, spent);
      }
      const stop = await settleBatch(runtime, progress, calls, tools);
      if (stop !== undefined) return await finishRun(runtime, progress, stop);
    }
  } catch (error) {
    if (RunHandedOverError.isInstance(error)) throw error;
    return failRun(runtime, progress, error);
  } finally {
    stopHeartbeat();
    control.dispose();
  }
}

/** Every step before this one is committed: the run may stop here and continue elsewhere. */
function handOverIfAsked(options: RunAgentOptions, runId: string, steps: number): void {
  if (options.handover?.aborted === true) throw new RunHandedOverError({ runId, steps });
}

/** True when the conversation ends with an assistant message that calls no tool: the run's answer. */
function endsWithAnswer(messages: readonly ChatMessage[]): boolean {
  const last = messages.at(-1);
  return last?.role === 'assistant' && (last.tool_calls?.length ?? 0) === 0;
}
