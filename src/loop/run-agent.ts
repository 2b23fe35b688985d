import { randomUUID } from 'node:crypto';
import type { PinnedState } from '../context/compress-context.js';
import type { ContextManager } from '../context/context-manager.js';
import { isCallHistorySource } from '../core/call-history.js';
import type { AssistantMessage, ChatMessage, ToolCall } from '../core/chat-message.js';
import type { Locale } from '../core/locale.js';
import type { Principal } from '../core/principal.js';
import { createMemoryJournal, type RunJournal } from '../core/run-journal.js';
import type { RunUsage } from '../core/run-usage.js';
import type { StopReason } from '../core/stop-reason.js';
import { ArbiterError } from '../errors/arbiter-error.js';
import { ModelError } from '../errors/model-error.js';
import { EventBus } from '../events/event-bus.js';
import { startHeartbeat } from '../events/start-heartbeat.js';
import { type ApprovalBroker, denyAllApprovals } from '../gate/approval-broker.js';
import type { AuditLog } from '../gate/audit-log.js';
import type { IdempotencyStore } from '../gate/idempotency-store.js';
import { MemoryAuditLog } from '../gate/memory-audit-log.js';
import { allowAllGate, type ToolGate } from '../gate/tool-gate.js';
import type { Model, ModelResponse } from '../models/model.js';
import { costOf, type PriceTable } from '../models/pricing.js';
import { ToolRegistry, type ToolSet } from '../tools/tool-registry.js';
import { CallBrakes } from './call-brakes.js';
import { loopTexts } from './loop-texts.js';
import { type BatchContext, runBatch } from './run-batch.js';
import { RunControl } from './run-control.js';
import type { ErrorStyle } from './run-tool-call.js';

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
  };
  /** Prices per model, to put a cost on the run and enforce `limits.costBudget`. */
  readonly prices?: PriceTable;
  readonly signal?: AbortSignal;
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
  readonly locale?: Locale;
  readonly errorStyle?: ErrorStyle;
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
  const { model, sessionId, locale = 'en' } = options;
  const runId = options.runId ?? randomUUID();
  const limits = options.limits ?? {};
  const maxSteps = limits.maxSteps ?? 10;
  const tokenBudget = limits.tokenBudget ?? Number.POSITIVE_INFINITY;
  const costBudget = limits.costBudget ?? Number.POSITIVE_INFINITY;
  if (Number.isFinite(costBudget) && options.prices === undefined) {
    throw new ModelError({ kind: 'request', message: 'limits.costBudget needs a price table (the prices option)' });
  }
  const emitter = (options.events ?? new EventBus()).forRun(runId, { startSeq: options.resume?.lastSeq ?? 0 });
  const control = new RunControl({ signal: options.signal, timeLimitMs: limits.timeLimitMs });
  const journal = options.journal ?? createMemoryJournal();
  const texts = loopTexts(locale);
  const conversation: ChatMessage[] = [...options.messages];
  const callIds = new Set(
    conversation
      .flatMap((message) => (message.role === 'assistant' ? (message.tool_calls ?? []) : []))
      .map((call) => call.id),
  );
  const firstNew = conversation.length;
  const startedAt = performance.now();
  const usage = {
    inputTokens: options.resume?.usage.inputTokens ?? 0,
    outputTokens: options.resume?.usage.outputTokens ?? 0,
    cachedInputTokens: options.resume?.usage.cachedInputTokens ?? 0,
  };
  let steps = options.resume?.steps ?? 0;
  let cost = options.resume?.cost ?? 0;
  let lastText: string | undefined;
  const audit = isCallHistorySource(options.audit) ? options.audit : new MemoryAuditLog({ forwardTo: options.audit });
  const batchContext = (tools: ToolSet): BatchContext => ({
    runId,
    sessionId,
    principal: options.principal,
    tools,
    brakes,
    gate: options.gate ?? allowAllGate,
    approvals: options.approvals ?? denyAllApprovals,
    idempotency: options.idempotency,
    audit,
    journal,
    emitter,
    control,
    locale,
    errorStyle: options.errorStyle ?? 'full',
    toolTimeoutMs: options.toolTimeoutMs,
    maxParallelReads: options.maxParallelReads ?? 4,
    nullMeansAbsent: model.strictTools === true,
  });
  const brakes = new CallBrakes({
    maxIdenticalCalls: limits.maxIdenticalCalls ?? 2,
    maxConsecutiveFailures: limits.maxConsecutiveFailures ?? 2,
  });

  // Built field by field: a spread here is measurably slower on Node 20, and this runs every step.
  const totalUsage = (): RunUsage => ({
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cachedInputTokens: usage.cachedInputTokens,
    totalTokens: usage.inputTokens + usage.outputTokens,
  });
  const result = (stopReason: StopReason, durationMs: number): RunResult => ({
    runId,
    stopReason,
    text: lastText,
    messages: conversation,
    newMessages: conversation.slice(firstNew),
    steps,
    usage: totalUsage(),
    durationMs,
    cost: options.prices === undefined ? undefined : cost,
    lastSeq: emitter.lastSeq,
  });
  const finish = (stopReason: StopReason): RunResult => {
    const durationMs = performance.now() - startedAt;
    emitter.emit({
      type: 'run:end',
      stopReason,
      steps,
      usage: totalUsage(),
      durationMs,
      ...(options.prices === undefined ? {} : { cost }),
    });
    return result(stopReason, durationMs);
  };
  const append = async (...messages: ChatMessage[]) => {
    conversation.push(...messages);
    await journal.commitStep({
      runId,
      sessionId,
      appended: messages,
      steps,
      usage: totalUsage(),
      cost,
      lastSeq: emitter.lastSeq,
    });
  };
  const callModel = async (tools: ToolSet): Promise<ModelResponse> => {
    const step = steps;
    const prepared = await options.context?.prepare({
      messages: conversation,
      tools: tools.specs,
      ...(options.pinned === undefined ? {} : { pinned: options.pinned }),
      signal: control.signal,
    });
    // A summary made to fit the window is a model call of this run: it counts in the budget.
    usage.inputTokens += prepared?.usage?.inputTokens ?? 0;
    usage.outputTokens += prepared?.usage?.outputTokens ?? 0;
    const response = await model.generate({
      messages: prepared?.messages ?? conversation,
      tools: tools.specs,
      signal: control.signal,
      onTextDelta: (text) => emitter.emit({ type: 'model:delta', step, text }),
      onDecision: (decision) => emitter.emit({ type: 'model:decision', step, decision }),
    });
    if (prepared !== undefined) options.context?.observe({ prepared, usage: response.usage });
    usage.inputTokens += response.usage.inputTokens;
    usage.outputTokens += response.usage.outputTokens;
    usage.cachedInputTokens += response.usage.cachedInputTokens ?? 0;
    if (options.prices !== undefined) {
      const answeredBy = response.model ?? model.name;
      const priced = costOf({ model: answeredBy, usage: response.usage, prices: options.prices });
      if (priced === undefined && Number.isFinite(costBudget)) {
        throw new ModelError({
          kind: 'request',
          message: `no price for model ${answeredBy} in the price table: limits.costBudget cannot be enforced`,
        });
      }
      cost += priced?.total ?? 0;
    }
    emitter.emit({
      type: 'model:end',
      step,
      model: response.model ?? model.name,
      usage: response.usage,
      finishReason: response.finishReason,
      toolCalls: response.message.tool_calls?.length ?? 0,
    });
    const message = withUniqueCallIds(response.message, callIds);
    await append(message);
    if (message.content !== null && message.content !== '') lastText = message.content;
    return { ...response, message };
  };
  /** Runs a batch and appends its answers; returns why the run must stop, if it must. */
  const settle = async (calls: readonly ToolCall[], tools: ToolSet): Promise<StopReason | undefined> => {
    const batch = await runBatch({ calls, step: steps, context: batchContext(tools) });
    if (batch.stop === 'awaiting_approval') return batch.stop;
    await append(...batch.messages);
    if (batch.failure !== undefined) throw batch.failure;
    const roomForAnswer = steps < maxSteps && usage.inputTokens + usage.outputTokens < tokenBudget && cost < costBudget;
    if (batch.stop === 'repeated_call' && control.reason === undefined && roomForAnswer) {
      steps += 1;
      let answer: ModelResponse;
      try {
        answer = await callModel(emptyToolSet);
      } catch (error) {
        if (control.reason !== undefined) return control.reason;
        throw error;
      }
      const unanswered = answer.message.tool_calls ?? [];
      if (unanswered.length > 0) {
        await append(
          ...unanswered.map(
            (call): ChatMessage => ({
              role: 'tool',
              tool_call_id: call.id,
              content: texts.skipped({ reason: 'repeated_call' }),
            }),
          ),
        );
      }
    }
    if (batch.stop === 'tool_failures') {
      const handoff: AssistantMessage = { role: 'assistant', content: texts.handoff() };
      await append(handoff);
      lastText = handoff.content ?? undefined;
    }
    return batch.stop;
  };

  emitter.emit({ type: 'run:start', sessionId, model: model.name });
  const stopHeartbeat = startHeartbeat({ emitter, intervalMs: options.heartbeatMs ?? 5_000 });
  try {
    // A run that crashed after committing its answer but before it was marked ended is already complete.
    if (options.resume !== undefined && endsWithAnswer(conversation)) return finish('completed');
    if (options.resume !== undefined) await replayBrakes({ brakes, conversation, journal, runId });
    const unanswered = unansweredCalls(conversation);
    if (unanswered.length > 0) {
      const stop = await settle(unanswered, mountTools(options, Math.max(steps, 1)));
      if (stop !== undefined) return finish(stop);
    }
    for (;;) {
      if (control.reason !== undefined) return finish(control.reason);
      if (steps >= maxSteps) return finish('max_steps');
      if (usage.inputTokens + usage.outputTokens >= tokenBudget) return finish('token_budget');
      if (cost >= costBudget) return finish('cost_budget');
      steps += 1;
      const tools = mountTools(options, steps);
      let response: ModelResponse;
      try {
        response = await callModel(tools);
      } catch (error) {
        if (control.reason !== undefined) return finish(control.reason);
        throw error;
      }
      const calls = response.message.tool_calls ?? [];
      if (calls.length === 0) return finish('completed');
      const spent: StopReason | undefined =
        usage.inputTokens + usage.outputTokens >= tokenBudget
          ? 'token_budget'
          : cost >= costBudget
            ? 'cost_budget'
            : undefined;
      if (spent !== undefined) {
        await append(
          ...calls.map(
            (call): ChatMessage => ({ role: 'tool', tool_call_id: call.id, content: texts.skipped({ reason: spent }) }),
          ),
        );
        return finish(spent);
      }
      const stop = await settle(calls, tools);
      if (stop !== undefined) return finish(stop);
    }
  } catch (error) {
    const code = ArbiterError.isInstance(error) ? error.code : 'internal_error';
    const message = error instanceof Error ? error.message : String(error);
    emitter.emit({ type: 'run:error', code, message, steps, usage: totalUsage() });
    return { ...result('error', performance.now() - startedAt), error: { code, message, cause: error } };
  } finally {
    stopHeartbeat();
    control.dispose();
  }
}

const emptyToolSet: ToolSet = { names: [], specs: [], get: () => undefined };

function mountTools(options: RunAgentOptions, step: number): ToolSet {
  const { tools, groups } = options;
  if (groups === undefined || !(tools instanceof ToolRegistry)) return tools;
  return tools.mount({ groups: typeof groups === 'function' ? groups({ step }) : groups });
}

/**
 * The message with every tool call id unique in the conversation. Some
 * endpoints number calls `call_0`, `call_1`… afresh at each step (or send
 * none); answers and recorded results are keyed by id, so a repeated id
 * would hand a new call an old result. `seen` holds the conversation's ids
 * and gains the message's.
 */
function withUniqueCallIds(message: AssistantMessage, seen: Set<string>): AssistantMessage {
  const calls = message.tool_calls;
  if (calls === undefined || calls.length === 0) return message;
  let changed = false;
  const unique = calls.map((call) => {
    if (call.id !== '' && !seen.has(call.id)) {
      seen.add(call.id);
      return call;
    }
    changed = true;
    let id = `${call.id || 'call'}_${randomUUID().slice(0, 8)}`;
    while (seen.has(id)) id = `${call.id || 'call'}_${randomUUID().slice(0, 8)}`;
    seen.add(id);
    return { ...call, id };
  });
  return changed ? { ...message, tool_calls: unique } : message;
}

/**
 * Brings a resumed run's brakes back to where they were: the calls this run
 * already made (after its user message) count again, from the outcomes the
 * journal recorded, so a restart cannot reset "the same call a third time"
 * or "the same tool failing twice in a row".
 */
async function replayBrakes({
  brakes,
  conversation,
  journal,
  runId,
}: {
  brakes: CallBrakes;
  conversation: readonly ChatMessage[];
  journal: RunJournal;
  runId: string;
}): Promise<void> {
  let start = conversation.length;
  while (start > 0 && conversation[start - 1]?.role !== 'user') start -= 1;
  for (const message of conversation.slice(start)) {
    if (message.role !== 'assistant') continue;
    for (const call of message.tool_calls ?? []) {
      const recorded = await journal.findToolResult(runId, call.id);
      if (recorded === undefined) continue;
      const { outcome } = recorded;
      if (!outcome.ok && outcome.error.code === 'not_run') continue;
      // Calls refused before validation passed never counted as "the same call".
      if (outcome.ok || outcome.error.issues === undefined) brakes.noteCall(call.function.name, parseArguments(call));
      brakes.noteOutcome(call.function.name, outcome.ok);
    }
  }
}

function parseArguments(call: ToolCall): unknown {
  try {
    return JSON.parse(call.function.arguments) as unknown;
  } catch {
    return call.function.arguments;
  }
}

/** True when the conversation ends with an assistant message that calls no tool: the run's answer. */
function endsWithAnswer(messages: readonly ChatMessage[]): boolean {
  const last = messages.at(-1);
  return last?.role === 'assistant' && (last.tool_calls?.length ?? 0) === 0;
}

/** The calls of the last assistant message that have no tool message yet (a run interrupted mid-batch). */
export function unansweredCalls(messages: readonly ChatMessage[]): readonly ToolCall[] {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message === undefined || message.role === 'tool') continue;
    if (message.role !== 'assistant' || message.tool_calls === undefined) return [];
    const answered = new Set(
      messages.slice(index + 1).flatMap((later) => (later.role === 'tool' ? [later.tool_call_id] : [])),
    );
    return message.tool_calls.filter((call) => !answered.has(call.id));
  }
  return [];
}
