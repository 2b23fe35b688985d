import { FatalToolError } from '../errors/fatal-tool-error.js';
import { InfrastructureError } from '../errors/infrastructure-error.js';
import { RetryableToolError } from '../errors/retryable-tool-error.js';
import type { ToolErrorStage } from '../events/agent-event.js';
import type { RunEmitter } from '../events/event-bus.js';
import type { Principal } from '../gate/principal.js';
import type { ToolGate } from '../gate/tool-gate.js';
import type { ToolSet } from '../tools/tool-registry.js';
import type { Locale, ToolContext, ToolErrorPayload, ToolOutcome } from '../tools/tool-types.js';
import { validateToolCall } from '../validation/validate-tool-call.js';
import type { CallBrakes } from './call-brakes.js';
import type { ToolCall } from './chat-message.js';
import { loopTexts } from './loop-texts.js';

/**
 * How errors are worded for the model. `full` is arbiter's message (field,
 * expectation, example, what was sent); `field_only` names the field and
 * nothing else; `vague` says only "Tool execution failed". The latter two
 * exist to measure what message quality is worth.
 */
export type ErrorStyle = 'full' | 'field_only' | 'vague';

/** What happened to one tool call, ready to become its tool message. */
export type ToolCallReport =
  | {
      readonly kind: 'done';
      readonly toolCallId: string;
      readonly tool: string;
      readonly outcome: ToolOutcome;
      /** The tool message's content, in the requested error style. */
      readonly content: string;
      /** Set when this call trips a brake that stops the run. */
      readonly brake?: 'repeated_call' | 'tool_failures';
    }
  /** The run was aborted while the tool ran and the tool gave up. */
  | { readonly kind: 'aborted'; readonly toolCallId: string; readonly tool: string };

export interface RunToolCallOptions {
  readonly call: ToolCall;
  readonly tools: ToolSet;
  readonly brakes: CallBrakes;
  readonly gate: ToolGate;
  readonly emitter: RunEmitter;
  readonly runId: string;
  readonly sessionId: string | undefined;
  readonly step: number;
  readonly principal: Principal | undefined;
  readonly signal: AbortSignal;
  readonly locale: Locale;
  readonly errorStyle: ErrorStyle;
}

/**
 * The tool runner: every tool call passes through here and only here.
 * Parse, look up, validate (all issues at once), brakes, gate, bind the
 * principal's parameters, execute, and turn whatever happened into data for
 * the model. Throws `InfrastructureError` only for failures the model cannot
 * fix; everything the model can act on comes back as a report.
 *
 * @example
 * const report = await runToolCall({ call, tools, brakes, gate, emitter, runId, sessionId, step, principal, signal, locale: 'en', errorStyle: 'full' });
 * messages.push({ role: 'tool', tool_call_id: call.id, content: report.content });
 */
export async function runToolCall(options: RunToolCallOptions): Promise<ToolCallReport> {
  const { call, tools, brakes, gate, emitter, step, locale, errorStyle } = options;
  const toolCallId = call.id;
  const name = call.function.name;
  const texts = loopTexts(locale);
  const startedAt = performance.now();
  emitter.emit({ type: 'tool:proposed', step, toolCallId, tool: name, arguments: call.function.arguments });

  const fail = (
    stage: ToolErrorStage,
    error: ToolErrorPayload,
    fullContent: string,
    brake?: 'repeated_call',
  ): ToolCallReport => {
    const tripped = brakes.noteOutcome(name, false) ? 'tool_failures' : undefined;
    emitter.emit({
      type: 'tool:error',
      step,
      toolCallId,
      tool: name,
      stage,
      code: error.code,
      retryable: error.retryable,
      durationMs: performance.now() - startedAt,
    });
    const report = {
      kind: 'done' as const,
      toolCallId,
      tool: name,
      outcome: { ok: false as const, error },
      content: styleContent({ errorStyle, error, fullContent, locale }),
    };
    const stopsRun = brake ?? tripped;
    return stopsRun === undefined ? report : { ...report, brake: stopsRun };
  };

  const checked = validateToolCall({ registry: tools, name, rawArguments: call.function.arguments, locale });
  if (!checked.ok) {
    const issues = checked.issues.map(({ path, code, message }) => ({ path, code, message }));
    const code = checked.issues.length === 1 ? (checked.issues[0]?.code ?? 'invalid_arguments') : 'invalid_arguments';
    return fail('validation', { code, retryable: true, message: checked.message, issues }, checked.message);
  }
  const { tool, args } = checked;

  const times = brakes.noteCall(name, args);
  if (times > brakes.maxIdenticalCalls) {
    const message = texts.repeated({ tool: name, times: times - 1 });
    return fail('brake', { code: 'repeated_call', retryable: false, message }, message, 'repeated_call');
  }

  const context: ToolContext = {
    runId: options.runId,
    sessionId: options.sessionId,
    step,
    toolCallId,
    principal: options.principal,
    signal: options.signal,
  };
  const decision = gate.check({ tool, args, context });
  if (decision.decision === 'deny') {
    const message = texts.refused({ tool: name, code: decision.code, message: decision.message });
    return fail('gate', { code: decision.code, retryable: false, message }, message);
  }

  const boundArgs = bindParameters({
    args,
    boundParameters: tool.definition.boundParameters,
    principal: options.principal,
  });
  emitter.emit({ type: 'tool:start', step, toolCallId, tool: name });
  let data: unknown;
  try {
    data = await tool.definition.execute(boundArgs, context);
  } catch (error) {
    if (RetryableToolError.isInstance(error)) {
      const message = texts.retryable({ tool: name, code: error.code, message: error.message });
      return fail('execution', { code: error.code, retryable: true, message }, message);
    }
    if (FatalToolError.isInstance(error)) {
      const message = texts.refused({ tool: name, code: error.code, message: error.message });
      return fail('execution', { code: error.code, retryable: false, message }, message);
    }
    if (options.signal.aborted) return { kind: 'aborted', toolCallId, tool: name };
    throw new InfrastructureError({ message: `tool "${name}" failed unexpectedly`, toolName: name, cause: error });
  }
  brakes.noteOutcome(name, true);
  emitter.emit({ type: 'tool:end', step, toolCallId, tool: name, durationMs: performance.now() - startedAt });
  return { kind: 'done', toolCallId, tool: name, outcome: { ok: true, data }, content: serialiseResult(data) };
}

function bindParameters({
  args,
  boundParameters,
  principal,
}: {
  args: Record<string, unknown>;
  boundParameters: Readonly<Record<string, (principal: Principal) => unknown>> | undefined;
  principal: Principal | undefined;
}): Record<string, unknown> {
  if (boundParameters === undefined || principal === undefined) return args;
  const bound = { ...args };
  for (const [name, resolve] of Object.entries(boundParameters)) bound[name] = resolve(principal);
  return bound;
}

/** Results always reach the model as JSON, so text and data are never confused with an error sentence. */
function serialiseResult(data: unknown): string {
  return JSON.stringify(data ?? null);
}

function styleContent({
  errorStyle,
  error,
  fullContent,
  locale,
}: {
  errorStyle: ErrorStyle;
  error: ToolErrorPayload;
  fullContent: string;
  locale: Locale;
}): string {
  if (errorStyle === 'full') return fullContent;
  if (errorStyle === 'vague') return loopTexts(locale).vague();
  const fields = (error.issues ?? []).map((issue) => issue.path.replace(/^\$\.?/, '')).filter((field) => field !== '');
  if (fields.length === 0)
    return locale === 'zh-CN' ? `调用失败（${error.code}）。` : `The call failed (${error.code}).`;
  return fields
    .map((field) => (locale === 'zh-CN' ? `参数 ${field} 不正确。` : `${field} has the wrong format.`))
    .join(' ');
}
