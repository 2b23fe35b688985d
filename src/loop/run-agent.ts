import { randomUUID } from 'node:crypto';
import { ArbiterError } from '../errors/arbiter-error.js';
import type { RunUsage } from '../events/agent-event.js';
import { EventBus, type RunEmitter } from '../events/event-bus.js';
import type { Principal } from '../gate/principal.js';
import { allowAllGate, type ToolGate } from '../gate/tool-gate.js';
import type { Model, ModelResponse } from '../models/model.js';
import { ToolRegistry, type ToolSet } from '../tools/tool-registry.js';
import type { Locale } from '../tools/tool-types.js';
import { CallBrakes } from './call-brakes.js';
import type { AssistantMessage, ChatMessage, ToolCall } from './chat-message.js';
import { loopTexts } from './loop-texts.js';
import { RunControl } from './run-control.js';
import { type ErrorStyle, runToolCall } from './run-tool-call.js';
import type { StopReason } from './stop-reason.js';

/** The brakes of one run. Whichever trips first stops it. */
export interface RunLimits {
  /** Model calls per run. Default 10. */
  readonly maxSteps?: number;
  /** Input + output tokens per run, from the usage the model reports. Default unlimited. */
  readonly tokenBudget?: number;
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
  /** The conversation so far, ending with the user's new message. */
  readonly messages: readonly ChatMessage[];
  readonly principal?: Principal;
  readonly sessionId?: string;
  readonly runId?: string;
  readonly limits?: RunLimits;
  readonly signal?: AbortSignal;
  readonly events?: EventBus;
  readonly gate?: ToolGate;
  readonly locale?: Locale;
  readonly errorStyle?: ErrorStyle;
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
  const { model, sessionId, locale = 'en', gate = allowAllGate } = options;
  const runId = options.runId ?? randomUUID();
  const limits = options.limits ?? {};
  const maxSteps = limits.maxSteps ?? 10;
  const tokenBudget = limits.tokenBudget ?? Number.POSITIVE_INFINITY;
  const emitter = (options.events ?? new EventBus()).forRun(runId);
  const control = new RunControl({ signal: options.signal, timeLimitMs: limits.timeLimitMs });
  const brakes = new CallBrakes({
    maxIdenticalCalls: limits.maxIdenticalCalls ?? 2,
    maxConsecutiveFailures: limits.maxConsecutiveFailures ?? 2,
  });
  const texts = loopTexts(locale);
  const conversation: ChatMessage[] = [...options.messages];
  const firstNew = conversation.length;
  const startedAt = performance.now();
  const usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };
  let steps = 0;
  let lastText: string | undefined;

  const totalUsage = (): RunUsage => ({ ...usage, totalTokens: usage.inputTokens + usage.outputTokens });
  const finish = (stopReason: StopReason): RunResult => {
    const durationMs = performance.now() - startedAt;
    emitter.emit({ type: 'run:end', stopReason, steps, usage: totalUsage(), durationMs });
    return {
      runId,
      stopReason,
      text: lastText,
      messages: conversation,
      newMessages: conversation.slice(firstNew),
      steps,
      usage: totalUsage(),
      durationMs,
    };
  };
  const callModel = async (tools: ToolSet): Promise<ModelResponse> => {
    const step = steps;
    const response = await model.generate({
      messages: conversation,
      tools: tools.specs,
      signal: control.signal,
      onTextDelta: (text) => emitter.emit({ type: 'model:delta', step, text }),
    });
    usage.inputTokens += response.usage.inputTokens;
    usage.outputTokens += response.usage.outputTokens;
    usage.cachedInputTokens += response.usage.cachedInputTokens ?? 0;
    emitter.emit({
      type: 'model:end',
      step,
      usage: response.usage,
      finishReason: response.finishReason,
      toolCalls: response.message.tool_calls?.length ?? 0,
    });
    conversation.push(response.message);
    if (response.message.content !== null && response.message.content !== '') lastText = response.message.content;
    return response;
  };
  const answerSkipped = (calls: readonly ToolCall[], reason: StopReason) => {
    for (const call of calls) {
      conversation.push({ role: 'tool', tool_call_id: call.id, content: texts.skipped({ reason }) });
    }
  };

  emitter.emit({ type: 'run:start', sessionId, model: model.name });
  try {
    for (;;) {
      if (control.reason !== undefined) return finish(control.reason);
      if (steps >= maxSteps) return finish('max_steps');
      if (usage.inputTokens + usage.outputTokens >= tokenBudget) return finish('token_budget');
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
      if (usage.inputTokens + usage.outputTokens >= tokenBudget) {
        answerSkipped(calls, 'token_budget');
        return finish('token_budget');
      }
      const stop = await runBatch({
        options,
        calls,
        tools,
        brakes,
        gate,
        emitter,
        control,
        conversation,
        runId,
        step: steps,
      });
      if (stop === undefined) continue;
      if (stop === 'repeated_call' && control.reason === undefined) {
        steps += 1;
        const answer = await callModel(emptyToolSet);
        answerSkipped(answer.message.tool_calls ?? [], 'repeated_call');
      }
      if (stop === 'tool_failures') {
        const handoff: AssistantMessage = { role: 'assistant', content: texts.handoff() };
        conversation.push(handoff);
        lastText = handoff.content ?? undefined;
      }
      return finish(stop);
    }
  } catch (error) {
    const code = ArbiterError.isInstance(error) ? error.code : 'internal_error';
    const message = error instanceof Error ? error.message : String(error);
    emitter.emit({ type: 'run:error', code, message, steps, usage: totalUsage() });
    return {
      runId,
      stopReason: 'error',
      text: lastText,
      messages: conversation,
      newMessages: conversation.slice(firstNew),
      steps,
      usage: totalUsage(),
      durationMs: performance.now() - startedAt,
      error: { code, message, cause: error },
    };
  } finally {
    control.dispose();
  }
}

const emptyToolSet: ToolSet = { names: [], specs: [], get: () => undefined, tokenCost: () => 0 };

function mountTools(options: RunAgentOptions, step: number): ToolSet {
  const { tools, groups } = options;
  if (groups === undefined || !(tools instanceof ToolRegistry)) return tools;
  return tools.mount({ groups: typeof groups === 'function' ? groups({ step }) : groups });
}

/**
 * Runs one assistant turn's calls in order. Once a brake trips or the run is
 * stopped, the remaining calls are answered as not run, so every
 * `tool_call_id` still gets exactly one tool message. An infrastructure
 * failure also answers the rest before it propagates.
 */
async function runBatch({
  options,
  calls,
  tools,
  brakes,
  gate,
  emitter,
  control,
  conversation,
  runId,
  step,
}: {
  options: RunAgentOptions;
  calls: readonly ToolCall[];
  tools: ToolSet;
  brakes: CallBrakes;
  gate: ToolGate;
  emitter: RunEmitter;
  control: RunControl;
  conversation: ChatMessage[];
  runId: string;
  step: number;
}): Promise<StopReason | undefined> {
  const locale = options.locale ?? 'en';
  const texts = loopTexts(locale);
  let stop: StopReason | undefined;
  for (const [index, call] of calls.entries()) {
    stop ??= control.reason;
    if (stop !== undefined) {
      conversation.push({ role: 'tool', tool_call_id: call.id, content: texts.skipped({ reason: stop }) });
      continue;
    }
    let report: Awaited<ReturnType<typeof runToolCall>>;
    try {
      report = await runToolCall({
        call,
        tools,
        brakes,
        gate,
        emitter,
        runId,
        sessionId: options.sessionId,
        step,
        principal: options.principal,
        signal: control.signal,
        locale,
        errorStyle: options.errorStyle ?? 'full',
      });
    } catch (error) {
      for (const rest of calls.slice(index)) {
        conversation.push({ role: 'tool', tool_call_id: rest.id, content: texts.skipped({ reason: 'error' }) });
      }
      throw error;
    }
    if (report.kind === 'aborted') {
      stop = control.reason ?? 'aborted';
      conversation.push({ role: 'tool', tool_call_id: call.id, content: texts.skipped({ reason: stop }) });
      continue;
    }
    conversation.push({ role: 'tool', tool_call_id: call.id, content: report.content });
    if (report.brake !== undefined) stop = report.brake;
  }
  return stop;
}
