import type { AgentEvent } from '../events/agent-event.js';
import type { EventBus } from '../events/event-bus.js';
import type { ModelDecision } from '../models/model-decision.js';
import type { ToolSet } from '../tools/tool-registry.js';
import { createGenAiMetrics, type GenAiMetrics } from './gen-ai-metrics.js';
import { redactToolArguments } from './gen-ai-tool-arguments.js';
import {
  asOtelApi,
  type OtelAttributes,
  type OtelMeterProvider,
  type OtelSpan,
  type OtelTracerProvider,
  spanKind,
  spanStatusError,
} from './otel-api.js';
import type { CallTrace, RunTrace, StepTrace } from './run-trace.js';
import { TraceRecorder } from './trace-recorder.js';

export interface OpenTelemetryHandle {
  /** False when `@opentelemetry/api` could not be loaded: nothing is recorded. */
  readonly enabled: boolean;
  /** Why it is disabled. */
  readonly reason?: string;
  stop(): void;
}

export interface StartOpenTelemetryOptions {
  readonly bus: EventBus;
  /** The instrumentation scope's name. Default `arbiter`. */
  readonly tracerName?: string;
  /** `gen_ai.agent.name`; the run span is then named `invoke_agent {agentName}`. */
  readonly agentName?: string;
  /** `gen_ai.provider.name` (`openai`, `azure.ai.openai`, `ollama`…). Default `openai`. */
  readonly providerName?: string;
  /** Where spans go; default the global one (`trace.getTracerProvider()`). */
  readonly tracerProvider?: OtelTracerProvider;
  /** Where metrics go; default the global one (`metrics.getMeterProvider()`). */
  readonly meterProvider?: OtelMeterProvider;
  /**
   * Export each call's arguments as `gen_ai.tool.call.arguments`, redacted
   * as an approval card is (see `redactToolArguments`). Default false:
   * arguments, messages and tool results never leave as attributes.
   */
  readonly captureToolArguments?: boolean;
  /** The tools of the runs, for their sensitive fields and bound parameters when arguments are captured. */
  readonly tools?: Pick<ToolSet, 'get'>;
  /** Loads the API; the default imports `@opentelemetry/api` if it is installed. */
  readonly load?: () => Promise<unknown>;
}

const apiModule = '@opentelemetry/api';
/** A tool name the model proposed is exported only when it is a registered tool's, or looks like a tool name at all. */
const toolNamePattern = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;
/** Call ids come from the endpoint; one that does not look like an id is not exported. */
const callIdPattern = /^[a-zA-Z0-9_.:-]{1,128}$/;

interface OpenRun {
  readonly span: OtelSpan;
  readonly context: unknown;
  readonly model: string;
  readonly conversation: OtelAttributes;
  /** Decisions of the model call in progress, for a chat span that ends in failure. */
  decisions: ModelDecision[];
  readonly approvals: Map<string, { approvalId: string; rule: string }>;
}

/**
 * Turns runs into OpenTelemetry spans and metrics named as the GenAI
 * semantic conventions specify:
 *
 * - `invoke_agent {agent}` per run (internal): `gen_ai.operation.name`,
 *   `gen_ai.provider.name`, `gen_ai.agent.name`, `gen_ai.request.model`,
 *   `gen_ai.conversation.id` (the session), the run's token usage, and
 *   arbiter's `arbiter.run.id`, `arbiter.stop_reason`, `arbiter.steps`;
 *   `error.type` and an error status when the run failed.
 * - under it, `chat {model}` per model call (client): request and response
 *   model (they differ after a fallback), `gen_ai.usage.input_tokens` /
 *   `output_tokens`, `gen_ai.response.finish_reasons`; each retry, wait or
 *   fallback of a resilient model as an `arbiter.model.decision` span event
 *   and their kinds in `arbiter.model.decisions`. A call that failed ends the
 *   span with `error.type`.
 * - beside it, `execute_tool {tool}` per call (internal): `gen_ai.tool.name`
 *   (`unknown` for a name the model made up that is not a registered tool's,
 *   or without `tools` does not look like a tool name),
 *   `gen_ai.tool.call.id`, `gen_ai.tool.type`, `arbiter.gate.decision`,
 *   `arbiter.gate.rule` and `arbiter.approval.id` when a person had to
 *   decide, `arbiter.tool.status`, `arbiter.tool.error.stage` and
 *   `error.type` (the tool error's code) when it failed.
 * - metrics `gen_ai.client.token.usage` and `gen_ai.client.operation.duration`
 *   per model call.
 *
 * Arguments, messages and results are not exported unless
 * `captureToolArguments` is set, and then redacted. Spans carry the events'
 * timestamps, so they are exact although written when each step is over.
 *
 * `@opentelemetry/api` is an optional dependency, loaded with a dynamic
 * import: when it is not installed this resolves to a disabled handle and
 * costs nothing. Without an SDK registered, the API itself records nothing.
 *
 * @example
 * const otel = await startOpenTelemetry({ bus, agentName: 'shop-assistant' });
 * if (!otel.enabled) console.warn(`no tracing: ${otel.reason}`);
 */
export async function startOpenTelemetry({
  bus,
  tracerName = 'arbiter',
  agentName,
  providerName = 'openai',
  tracerProvider,
  meterProvider,
  captureToolArguments = false,
  tools,
  load = () => import(apiModule),
}: StartOpenTelemetryOptions): Promise<OpenTelemetryHandle> {
  let loaded: unknown;
  try {
    loaded = await load();
  } catch (error) {
    return disabled(`${apiModule} is not installed (${error instanceof Error ? error.message : String(error)})`);
  }
  const api = asOtelApi(loaded);
  if (api === undefined) return disabled(`${apiModule} does not look like the OpenTelemetry API`);
  const tracer = (tracerProvider ?? api.trace.getTracerProvider()).getTracer(tracerName);
  const meters = meterProvider ?? api.metrics?.getMeterProvider();
  const metrics: GenAiMetrics | undefined =
    meters === undefined ? undefined : createGenAiMetrics(meters.getMeter(tracerName));
  const exportedArguments = captureToolArguments
    ? redactToolArguments(tools === undefined ? {} : { tools })
    : undefined;
  const runs = new Map<string, OpenRun>();
  const provider = { 'gen_ai.provider.name': providerName };

  const startRun = (event: Extract<AgentEvent, { type: 'run:start' }>) => {
    const conversation: OtelAttributes =
      event.sessionId === undefined ? {} : { 'gen_ai.conversation.id': event.sessionId };
    const span = tracer.startSpan(
      agentName === undefined ? 'invoke_agent' : `invoke_agent ${agentName}`,
      {
        kind: spanKind.internal,
        startTime: event.at,
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          ...provider,
          'gen_ai.request.model': event.model,
          ...(agentName === undefined ? {} : { 'gen_ai.agent.name': agentName }),
          ...conversation,
          'arbiter.run.id': event.runId,
        },
      },
      api.context.active(),
    );
    runs.set(event.runId, {
      span,
      context: api.trace.setSpan(api.context.active(), span),
      model: event.model,
      conversation,
      decisions: [],
      approvals: new Map(),
    });
  };

  const chatAttributes = (run: OpenRun, responseModel: string | undefined): OtelAttributes => ({
    'gen_ai.operation.name': 'chat',
    ...provider,
    'gen_ai.request.model': run.model,
    ...(responseModel === undefined ? {} : { 'gen_ai.response.model': responseModel }),
  });

  const writeChat = (
    run: OpenRun,
    step: { step: number; startedAt: number; endedAt: number; decisions: readonly ModelDecision[] },
    outcome:
      | { responseModel: string; inputTokens: number; outputTokens: number; finishReason: string }
      | { errorType: string },
  ) => {
    const responseModel = 'responseModel' in outcome ? outcome.responseModel : undefined;
    const metricAttributes = chatAttributes(run, responseModel);
    const span = tracer.startSpan(
      `chat ${run.model}`,
      {
        kind: spanKind.client,
        startTime: step.startedAt,
        attributes: {
          ...metricAttributes,
          ...run.conversation,
          'arbiter.step': step.step,
          ...('responseModel' in outcome
            ? {
                'gen_ai.usage.input_tokens': outcome.inputTokens,
                'gen_ai.usage.output_tokens': outcome.outputTokens,
                'gen_ai.response.finish_reasons': [outcome.finishReason],
              }
            : {}),
          ...(step.decisions.length === 0
            ? {}
            : { 'arbiter.model.decisions': step.decisions.map((decision) => decision.kind) }),
        },
      },
      run.context,
    );
    for (const decision of step.decisions) span.addEvent('arbiter.model.decision', decisionAttributes(decision));
    if ('errorType' in outcome) {
      span.setAttribute('error.type', outcome.errorType);
      span.setStatus({ code: spanStatusError, message: outcome.errorType });
    }
    span.end(step.endedAt);
    metrics?.recordModelCall({
      attributes: metricAttributes,
      durationMs: step.endedAt - step.startedAt,
      ...('responseModel' in outcome
        ? { inputTokens: outcome.inputTokens, outputTokens: outcome.outputTokens }
        : { inputTokens: 0, outputTokens: 0, errorType: outcome.errorType }),
    });
  };

  // The model names the tool: whatever it wrote (an email, a card number) must not become a span name. A call
  // validation refused as naming no registered tool is `unknown` whether or not `tools` was given.
  const exportedToolName = (call: CallTrace): string => {
    if (call.stage === 'validation' && call.code === 'unknown_tool') return 'unknown';
    const { tool: name } = call;
    return (tools === undefined ? toolNamePattern.test(name) : tools.get(name) !== undefined) ? name : 'unknown';
  };

  const writeTool = (run: OpenRun, call: CallTrace) => {
    const approval = run.approvals.get(call.toolCallId);
    const toolName = exportedToolName(call);
    const captured = toolName === 'unknown' ? undefined : exportedArguments?.(call.tool, call.rawArguments);
    const span = tracer.startSpan(
      `execute_tool ${toolName}`,
      {
        kind: spanKind.internal,
        startTime: call.startedAt,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          ...provider,
          'gen_ai.tool.name': toolName,
          ...(callIdPattern.test(call.toolCallId) ? { 'gen_ai.tool.call.id': call.toolCallId } : {}),
          'gen_ai.tool.type': 'function',
          ...run.conversation,
          'arbiter.gate.decision': call.gate,
          'arbiter.tool.status': call.status,
          'arbiter.tool.executed': call.executed,
          ...(approval === undefined
            ? {}
            : { 'arbiter.approval.id': approval.approvalId, 'arbiter.gate.rule': approval.rule }),
          ...(captured === undefined ? {} : { 'gen_ai.tool.call.arguments': captured }),
        },
      },
      run.context,
    );
    if (call.status === 'error') {
      span.setAttributes({
        'error.type': call.code ?? 'tool_error',
        ...(call.stage === undefined ? {} : { 'arbiter.tool.error.stage': call.stage }),
        ...(call.retryable === undefined ? {} : { 'arbiter.tool.error.retryable': call.retryable }),
      });
      span.setStatus({ code: spanStatusError, message: `${call.stage ?? 'error'}: ${call.code ?? ''}` });
    }
    span.end(call.endedAt);
  };

  const endStep = (trace: RunTrace, step: StepTrace) => {
    const run = runs.get(trace.runId);
    if (run === undefined) return;
    if (step.finishReason !== 'resumed') {
      writeChat(
        run,
        { step: step.step, startedAt: step.startedAt, endedAt: step.modelEndedAt, decisions: step.decisions },
        {
          responseModel: step.model,
          inputTokens: step.inputTokens,
          outputTokens: step.outputTokens,
          finishReason: step.finishReason,
        },
      );
    }
    for (const call of step.calls) writeTool(run, call);
  };

  const endRun = (trace: RunTrace) => {
    const run = runs.get(trace.runId);
    runs.delete(trace.runId);
    if (run === undefined || trace.end === undefined) return;
    const { end } = trace;
    if (end.errorCode === 'model_call_failed') {
      // The model call that failed has no model:end, so no step: its span is written here.
      writeChat(
        run,
        {
          step: end.steps,
          startedAt: trace.steps.at(-1)?.endedAt ?? trace.startedAt,
          endedAt: end.at,
          decisions: run.decisions,
        },
        { errorType: modelErrorType(run.decisions) },
      );
    }
    const { span } = run;
    span.setAttributes({
      'gen_ai.usage.input_tokens': end.usage.inputTokens,
      'gen_ai.usage.output_tokens': end.usage.outputTokens,
      'arbiter.stop_reason': end.stopReason,
      'arbiter.steps': end.steps,
    });
    if (end.stopReason === 'error') {
      span.setAttribute('error.type', end.errorCode ?? 'internal_error');
      span.setStatus({ code: spanStatusError, message: end.errorCode ?? 'error' });
    }
    span.end(end.at);
  };

  const recorder = new TraceRecorder({ onStep: endStep, onRun: endRun });
  const unsubscribe = bus.subscribe((event) => {
    if (event.type === 'run:start') startRun(event);
    const run = runs.get(event.runId);
    if (run !== undefined) {
      if (event.type === 'model:decision') run.decisions.push(event.decision);
      else if (event.type === 'model:end') run.decisions = [];
      else if (event.type === 'approval:required') {
        run.approvals.set(event.toolCallId, { approvalId: event.approvalId, rule: event.rule });
      }
    }
    recorder.record(event);
  });
  return { enabled: true, stop: unsubscribe };
}

function decisionAttributes(decision: ModelDecision): OtelAttributes {
  return {
    'arbiter.decision.kind': decision.kind,
    'arbiter.decision.model': decision.model,
    'arbiter.decision.attempt': decision.attempt,
    'arbiter.decision.delay_ms': decision.delayMs,
    'arbiter.decision.error_kind': decision.errorKind,
    ...(decision.status === undefined ? {} : { 'arbiter.decision.status': decision.status }),
    ...(decision.reason === undefined ? {} : { 'arbiter.decision.reason': decision.reason }),
    ...(decision.nextModel === undefined ? {} : { 'arbiter.decision.next_model': decision.nextModel }),
  };
}

/** The failure class of the last try (`rate_limited`, `server`, `timeout`…), as `error.type`. */
function modelErrorType(decisions: readonly ModelDecision[]): string {
  return decisions.at(-1)?.errorKind ?? 'model_call_failed';
}

function disabled(reason: string): OpenTelemetryHandle {
  return { enabled: false, reason, stop: () => {} };
}
