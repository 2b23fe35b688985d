import type { EventBus } from '../events/event-bus.js';
import type { RunTrace, StepTrace } from './run-trace.js';
import { TraceRecorder } from './trace-recorder.js';

type AttributeValue = string | number | boolean | readonly string[];

/** The slice of `@opentelemetry/api` used here, so the package stays optional. */
interface OtelSpan {
  setAttribute(key: string, value: AttributeValue): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(endTime?: number): void;
}

interface OtelApi {
  readonly trace: {
    getTracer(
      name: string,
      version?: string,
    ): {
      startSpan(
        name: string,
        options?: { kind?: number; startTime?: number; attributes?: Record<string, AttributeValue> },
        context?: unknown,
      ): OtelSpan;
    };
    setSpan(context: unknown, span: OtelSpan): unknown;
  };
  readonly context: { active(): unknown };
}

/** SpanKind and SpanStatusCode values of the OpenTelemetry API (stable since 1.0). */
const spanKind = { internal: 0, client: 2 } as const;
const statusError = 2;

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
  /** `gen_ai.agent.name` on run spans. */
  readonly agentName?: string;
  /** Loads the API; the default imports `@opentelemetry/api` if it is installed. */
  readonly load?: () => Promise<unknown>;
}

const apiModule = '@opentelemetry/api';

/**
 * Turns runs into OpenTelemetry spans following the GenAI semantic
 * conventions: an `invoke_agent` span per run, and under it a `chat` span
 * per model call (`gen_ai.request.model`, `gen_ai.usage.input_tokens`,
 * `gen_ai.usage.output_tokens`, `gen_ai.response.finish_reasons`) and an
 * `execute_tool` span per tool call (`gen_ai.tool.name`,
 * `gen_ai.tool.call.id`, `arbiter.gate.decision`, `error.type`). Spans carry
 * the events' timestamps, so they are exact although written after the fact.
 *
 * `@opentelemetry/api` is an optional dependency, loaded with a dynamic
 * import: when it is not installed this resolves to a disabled handle and
 * costs nothing. Without an SDK registered, the API itself records nothing.
 *
 * @example
 * const otel = await startOpenTelemetry({ bus });
 * if (!otel.enabled) console.warn(`no tracing: ${otel.reason}`);
 */
export async function startOpenTelemetry({
  bus,
  tracerName = 'arbiter',
  agentName,
  load = () => import(apiModule),
}: StartOpenTelemetryOptions): Promise<OpenTelemetryHandle> {
  let api: OtelApi | undefined;
  try {
    api = asOtelApi(await load());
  } catch (error) {
    return disabled(`${apiModule} is not installed (${error instanceof Error ? error.message : String(error)})`);
  }
  if (api === undefined) return disabled(`${apiModule} does not look like the OpenTelemetry API`);
  const otel = api;
  const tracer = otel.trace.getTracer(tracerName);
  const runSpans = new Map<string, { span: OtelSpan; context: unknown }>();

  const startRun = (runId: string, model: string, sessionId: string | undefined, at: number) => {
    const span = tracer.startSpan(
      `invoke_agent ${agentName ?? model}`,
      {
        kind: spanKind.internal,
        startTime: at,
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.request.model': model,
          'arbiter.run.id': runId,
          ...(agentName === undefined ? {} : { 'gen_ai.agent.name': agentName }),
          ...(sessionId === undefined ? {} : { 'gen_ai.conversation.id': sessionId }),
        },
      },
      otel.context.active(),
    );
    runSpans.set(runId, { span, context: otel.trace.setSpan(otel.context.active(), span) });
  };

  const endStep = (run: RunTrace, step: StepTrace) => {
    const parent = runSpans.get(run.runId)?.context;
    if (step.finishReason !== 'resumed') {
      tracer
        .startSpan(
          `chat ${step.model}`,
          {
            kind: spanKind.client,
            startTime: step.startedAt,
            attributes: {
              'gen_ai.operation.name': 'chat',
              'gen_ai.request.model': step.model,
              'gen_ai.usage.input_tokens': step.inputTokens,
              'gen_ai.usage.output_tokens': step.outputTokens,
              'gen_ai.response.finish_reasons': [step.finishReason],
            },
          },
          parent,
        )
        .end(step.modelEndedAt);
    }
    for (const call of step.calls) {
      const span = tracer.startSpan(
        `execute_tool ${call.tool}`,
        {
          kind: spanKind.internal,
          startTime: call.startedAt,
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': call.tool,
            'gen_ai.tool.call.id': call.toolCallId,
            'arbiter.gate.decision': call.gate,
            'arbiter.tool.status': call.status,
          },
        },
        parent,
      );
      if (call.status === 'error') {
        span.setAttribute('error.type', call.code ?? 'tool_error');
        span.setStatus({ code: statusError, message: `${call.stage ?? 'error'}: ${call.code ?? ''}` });
      }
      span.end(call.endedAt);
    }
  };

  const endRun = (run: RunTrace) => {
    const entry = runSpans.get(run.runId);
    runSpans.delete(run.runId);
    if (entry === undefined || run.end === undefined) return;
    const { span } = entry;
    span.setAttribute('gen_ai.usage.input_tokens', run.end.usage.inputTokens);
    span.setAttribute('gen_ai.usage.output_tokens', run.end.usage.outputTokens);
    span.setAttribute('arbiter.stop_reason', run.end.stopReason);
    span.setAttribute('arbiter.steps', run.end.steps);
    if (run.end.stopReason === 'error') {
      span.setAttribute('error.type', run.end.errorCode ?? 'internal_error');
      span.setStatus({ code: statusError, message: run.end.errorCode ?? 'error' });
    }
    span.end(run.end.at);
  };

  const recorder = new TraceRecorder({ onStep: endStep, onRun: endRun });
  const unsubscribe = bus.subscribe((event) => {
    if (event.type === 'run:start') startRun(event.runId, event.model, event.sessionId, event.at);
    recorder.record(event);
  });
  return { enabled: true, stop: unsubscribe };
}

function disabled(reason: string): OpenTelemetryHandle {
  return { enabled: false, reason, stop: () => {} };
}

function asOtelApi(loaded: unknown): OtelApi | undefined {
  for (const candidate of [loaded, (loaded as { default?: unknown } | null)?.default]) {
    if (typeof candidate !== 'object' || candidate === null) continue;
    const { trace, context } = candidate as { trace?: unknown; context?: unknown };
    if (
      typeof trace === 'object' &&
      trace !== null &&
      typeof (trace as { getTracer?: unknown }).getTracer === 'function' &&
      typeof (trace as { setSpan?: unknown }).setSpan === 'function' &&
      typeof context === 'object' &&
      context !== null &&
      typeof (context as { active?: unknown }).active === 'function'
    ) {
      return candidate as OtelApi;
    }
  }
  return undefined;
}
