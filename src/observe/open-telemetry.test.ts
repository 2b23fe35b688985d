import { describe, expect, it } from 'vitest';
import { EventBus } from '../events/event-bus.js';
import { runAgent } from '../loop/run-agent.js';
import { ScriptedModel } from '../models/scripted-model.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { startOpenTelemetry } from './open-telemetry.js';

interface RecordedSpan {
  name: string;
  kind: number | undefined;
  startTime: number | undefined;
  endTime: number | undefined;
  parent: string | undefined;
  attributes: Record<string, unknown>;
  status: { code: number; message?: string } | undefined;
}

/** Just enough of `@opentelemetry/api` to see what would be exported. */
function fakeApi() {
  const spans: RecordedSpan[] = [];
  const api = {
    context: { active: () => ({ parent: undefined }) },
    trace: {
      setSpan: (_context: unknown, span: { name: string }) => ({ parent: span.name }),
      getTracer: () => ({
        startSpan: (
          name: string,
          options: { kind?: number; startTime?: number; attributes?: Record<string, unknown> } = {},
          context?: { parent?: string },
        ) => {
          const span: RecordedSpan = {
            name,
            kind: options.kind,
            startTime: options.startTime,
            endTime: undefined,
            parent: context?.parent,
            attributes: { ...options.attributes },
            status: undefined,
          };
          spans.push(span);
          return {
            name,
            setAttribute: (key: string, value: unknown) => {
              span.attributes[key] = value;
            },
            setStatus: (status: { code: number; message?: string }) => {
              span.status = status;
            },
            end: (endTime?: number) => {
              span.endTime = endTime;
            },
          };
        },
      }),
    },
  };
  return { api, spans };
}

async function runOnce(bus: EventBus) {
  const registry = new ToolRegistry().register(
    defineTool<{ city: string }>({
      name: 'get_weather',
      description: 'Weather in a city. Not for forecasts.',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string', description: 'City name', enum: ['Paris', 'Rome'] } },
        required: ['city'],
      },
      sideEffect: 'read',
      execute: ({ city }) => ({ city, sky: 'clear' }),
    }),
  );
  const model = new ScriptedModel({
    script: {
      name: 'weather',
      turns: [{ steps: [{ call: { name: 'get_weather', arguments: { city: 'paris' } } }, { say: 'Clear.' }] }],
    },
  });
  const result = await runAgent({
    model,
    tools: registry,
    messages: [{ role: 'user', content: 'Paris?' }],
    events: bus,
  });
  await new Promise((resolve) => setImmediate(resolve));
  return result;
}

describe('startOpenTelemetry', () => {
  it('is a no-op when @opentelemetry/api is not installed, and the run is unaffected', async () => {
    const bus = new EventBus();
    const missing = Object.assign(new Error("Cannot find package '@opentelemetry/api'"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    const otel = await startOpenTelemetry({ bus, load: () => Promise.reject(missing) });
    expect(otel.enabled).toBe(false);
    expect(otel.reason).toContain('@opentelemetry/api is not installed');
    const result = await runOnce(bus);
    expect(result.stopReason).toBe('completed');
    otel.stop();
  });

  it('is a no-op when the module is not the OpenTelemetry API', async () => {
    const otel = await startOpenTelemetry({ bus: new EventBus(), load: async () => ({ trace: {} }) });
    expect(otel).toMatchObject({
      enabled: false,
      reason: '@opentelemetry/api does not look like the OpenTelemetry API',
    });
  });

  it('writes an invoke_agent span per run with chat and execute_tool spans under it, in GenAI terms', async () => {
    const bus = new EventBus();
    const { api, spans } = fakeApi();
    const otel = await startOpenTelemetry({ bus, load: async () => api, agentName: 'shop-assistant' });
    expect(otel.enabled).toBe(true);
    await runOnce(bus);
    otel.stop();
    expect(spans.map((span) => [span.name, span.parent ?? null])).toEqual([
      ['invoke_agent shop-assistant', null],
      ['chat scripted:weather', 'invoke_agent shop-assistant'],
      ['execute_tool get_weather', 'invoke_agent shop-assistant'],
      ['chat scripted:weather', 'invoke_agent shop-assistant'],
      ['execute_tool get_weather', 'invoke_agent shop-assistant'],
      ['chat scripted:weather', 'invoke_agent shop-assistant'],
    ]);
    const [run, chat, failedTool, , okTool] = spans;
    expect(run?.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'shop-assistant',
      'gen_ai.request.model': 'scripted:weather',
      'arbiter.stop_reason': 'completed',
      'arbiter.steps': 3,
    });
    expect(run?.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(chat?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'scripted:weather',
      'gen_ai.response.finish_reasons': ['tool_calls'],
    });
    expect(chat?.kind).toBe(2);
    expect(chat?.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    expect(failedTool?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_weather',
      'gen_ai.tool.call.id': 'call_1',
      'arbiter.gate.decision': 'not_checked',
      'error.type': 'invalid_enum',
    });
    expect(failedTool?.status?.code).toBe(2);
    expect(okTool?.attributes).toMatchObject({ 'arbiter.gate.decision': 'allowed', 'arbiter.tool.status': 'ok' });
    expect(okTool?.status).toBeUndefined();
    for (const span of spans) {
      expect(span.startTime).toBeTypeOf('number');
      expect(span.endTime).toBeGreaterThanOrEqual(span.startTime ?? 0);
    }
  });

  it('loads the real API when it is installed (here as a dev dependency), with no SDK recording nothing', async () => {
    const bus = new EventBus();
    const otel = await startOpenTelemetry({ bus });
    expect(otel.enabled).toBe(true);
    expect((await runOnce(bus)).stopReason).toBe('completed');
    otel.stop();
  });
});
