import * as otelApi from '@opentelemetry/api';
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../errors/model-error.js';
import { caseApprovals } from '../evaluation/case-approvals.js';
import { EventBus } from '../events/event-bus.js';
import { createTierGate } from '../gate/tier-gate.js';
import { runAgent } from '../loop/run-agent.js';
import type { Model } from '../models/model.js';
import { ModelSemaphore } from '../models/model-semaphore.js';
import { ResilientModel } from '../models/resilient-model.js';
import { ScriptedModel } from '../models/scripted-model.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { startOpenTelemetry } from './open-telemetry.js';

/** Values that must never reach an exporter: they are in the user's message and the tool arguments. */
const secrets = ['4111 1111 1111 1111', '4111111111111111', '4000000000000002', 'jane.doe@example.com'];

class CollectingReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

function registry(): ToolRegistry {
  return new ToolRegistry()
    .register(
      defineTool<{ customer_ref: string; email: string; card_number: string }>({
        name: 'update_payment_card',
        description: 'Replace the card on file and the receipt email. Not for refunds: use apply_refund.',
        parameters: {
          type: 'object',
          properties: {
            customer_ref: { type: 'string', description: 'Customer reference, e.g. C-1001' },
            email: { type: 'string', description: 'Receipt email address' },
            card_number: {
              type: 'string',
              description: 'Card number, 16 digits, no spaces',
              pattern: '^[0-9]{16}$',
              examples: ['4000000000000002'],
            },
          },
          required: ['customer_ref', 'email', 'card_number'],
        },
        sideEffect: 'reversible',
        execute: ({ customer_ref }) => ({ customer_ref, updated: true }),
      }),
    )
    .register(
      defineTool<{ order_id: string; amount_cents: number }>({
        name: 'apply_refund',
        description: 'Refund an order. Not for card changes: use update_payment_card.',
        parameters: {
          type: 'object',
          properties: {
            order_id: { type: 'string', description: 'Order id, e.g. SO20260901' },
            amount_cents: { type: 'integer', description: 'Amount in cents' },
          },
          required: ['order_id', 'amount_cents'],
        },
        sideEffect: 'irreversible',
        approval: () => ({ verdict: 'require_approval', rule: 'refund_needs_person', reason: 'a person decides' }),
        execute: () => ({ refunded: true }),
      }),
    );
}

function scripted(): ScriptedModel {
  return new ScriptedModel({
    script: {
      name: 'card',
      turns: [
        {
          steps: [
            {
              call: {
                name: 'update_payment_card',
                arguments: {
                  customer_ref: 'C-1001',
                  email: 'jane.doe@example.com',
                  card_number: '4111 1111 1111 1111',
                },
              },
            },
            { call: { name: 'apply_refund', arguments: { order_id: 'SO20260901', amount_cents: 1200 } } },
          ],
        },
      ],
    },
  });
}

/** Fails its first call with a 503, then answers as `inner`: the resilient model retries once. */
function flakyOnce(inner: Model): Model {
  let calls = 0;
  return {
    name: inner.name,
    generate: async (request) => {
      calls += 1;
      if (calls === 1) throw new ModelError({ kind: 'server', status: 503, message: 'the endpoint failed (503)' });
      return inner.generate(request);
    },
  };
}

async function tracedRun({
  model,
  captureToolArguments,
  withTools = true,
}: {
  model: Model;
  captureToolArguments?: boolean;
  /** False: `startOpenTelemetry` is not given the registry, as in the README's tracing setup. */
  withTools?: boolean;
}) {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const bus = new EventBus();
  const tools = registry();
  const otel = await startOpenTelemetry({
    bus,
    agentName: 'shop-assistant',
    tracerProvider,
    meterProvider,
    ...(withTools ? { tools } : {}),
    ...(captureToolArguments === undefined ? {} : { captureToolArguments }),
  });
  expect(otel.enabled).toBe(true);
  const result = await runAgent({
    model,
    tools,
    sessionId: 'sess-42',
    messages: [
      {
        role: 'user',
        content:
          'New card 4111111111111111 (printed 4111 1111 1111 1111), receipts to jane.doe@example.com, refund SO20260901',
      },
    ],
    events: bus,
    gate: createTierGate({ tools }),
    approvals: caseApprovals('hold'),
  });
  await new Promise((resolve) => setImmediate(resolve));
  otel.stop();
  await tracerProvider.forceFlush();
  const { resourceMetrics } = await reader.collect();
  const metrics = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
  return { result, spans: exporter.getFinishedSpans(), metrics };
}

function byStart(spans: readonly ReadableSpan[]): ReadableSpan[] {
  return [...spans].sort((a, b) => hrtimeMs(a.startTime) - hrtimeMs(b.startTime));
}

function hrtimeMs([seconds, nanos]: readonly [number, number]): number {
  return seconds * 1000 + nanos / 1e6;
}

describe('startOpenTelemetry with the real OpenTelemetry SDK', () => {
  it('exports invoke_agent, chat and execute_tool spans in one tree, named and attributed as GenAI', async () => {
    const { result, spans } = await tracedRun({
      model: new ResilientModel({
        primary: flakyOnce(scripted()),
        sleep: async () => {},
        semaphore: new ModelSemaphore({ limit: 1 }),
      }),
    });
    expect(result.stopReason).toBe('awaiting_approval');

    const root = spans.find((span) => span.name === 'invoke_agent shop-assistant');
    if (root === undefined) throw new Error('no invoke_agent span');
    expect(root.parentSpanContext).toBeUndefined();
    const children = byStart(spans.filter((span) => span !== root));
    for (const child of children) {
      expect(child.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
      expect(child.spanContext().traceId).toBe(root.spanContext().traceId);
      expect(hrtimeMs(child.startTime)).toBeGreaterThanOrEqual(hrtimeMs(root.startTime));
      expect(hrtimeMs(child.endTime)).toBeLessThanOrEqual(hrtimeMs(root.endTime));
    }
    expect(children.map((span) => span.name)).toEqual([
      'chat scripted:card',
      'execute_tool update_payment_card',
      'chat scripted:card',
      'execute_tool update_payment_card',
      'chat scripted:card',
      'execute_tool apply_refund',
    ]);

    expect(root.kind).toBe(otelApi.SpanKind.INTERNAL);
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'openai',
      'gen_ai.agent.name': 'shop-assistant',
      'gen_ai.request.model': 'scripted:card',
      'gen_ai.conversation.id': 'sess-42',
      'arbiter.stop_reason': 'awaiting_approval',
      'arbiter.steps': 3,
    });
    expect(root.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(root.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    expect(root.status.code).toBe(otelApi.SpanStatusCode.UNSET);

    const [firstChat, invalidCall, , correctedCall, , heldCall] = children;
    expect(firstChat?.kind).toBe(otelApi.SpanKind.CLIENT);
    expect(firstChat?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'scripted:card',
      'gen_ai.response.model': 'scripted:card',
      'gen_ai.conversation.id': 'sess-42',
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'arbiter.step': 1,
      'arbiter.model.decisions': ['retry'],
    });
    expect(firstChat?.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(firstChat?.events.map((event) => [event.name, event.attributes])).toEqual([
      [
        'arbiter.model.decision',
        expect.objectContaining({
          'arbiter.decision.kind': 'retry',
          'arbiter.decision.error_kind': 'server',
          'arbiter.decision.status': 503,
          'arbiter.decision.attempt': 1,
        }),
      ],
    ]);
    expect(children[2]?.attributes['arbiter.model.decisions']).toBeUndefined();

    expect(invalidCall?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'update_payment_card',
      'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.type': 'function',
      'arbiter.gate.decision': 'not_checked',
      'arbiter.tool.status': 'error',
      'arbiter.tool.error.stage': 'validation',
      'arbiter.tool.error.retryable': true,
      'error.type': 'pattern_mismatch',
    });
    expect(invalidCall?.status.code).toBe(otelApi.SpanStatusCode.ERROR);
    expect(correctedCall?.attributes).toMatchObject({
      'arbiter.gate.decision': 'allowed',
      'arbiter.tool.status': 'ok',
      'arbiter.tool.executed': true,
    });
    expect(correctedCall?.attributes['error.type']).toBeUndefined();
    expect(heldCall?.attributes).toMatchObject({
      'gen_ai.tool.name': 'apply_refund',
      'arbiter.gate.decision': 'approval_required',
      'arbiter.tool.status': 'pending',
      'arbiter.approval.id': 'eval',
      'arbiter.gate.rule': 'refund_needs_person',
      'arbiter.tool.executed': false,
    });
    for (const span of spans) expect(span.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
  });

  it('records gen_ai.client.token.usage per token type and gen_ai.client.operation.duration in seconds', async () => {
    const { spans, metrics } = await tracedRun({ model: scripted() });
    const usage = metrics.find((metric) => metric.descriptor.name === 'gen_ai.client.token.usage');
    const duration = metrics.find((metric) => metric.descriptor.name === 'gen_ai.client.operation.duration');
    expect(usage?.descriptor).toMatchObject({ unit: '{token}', type: 'HISTOGRAM' });
    expect(duration?.descriptor).toMatchObject({ unit: 's', type: 'HISTOGRAM' });

    const chats = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
    const total = (key: string) => chats.reduce((sum, span) => sum + Number(span.attributes[key]), 0);
    const points = (usage?.dataPoints ?? []) as DataPoint<Histogram>[];
    const ofType = (type: string) => points.find((point) => point.attributes['gen_ai.token.type'] === type);
    for (const [type, key] of [
      ['input', 'gen_ai.usage.input_tokens'],
      ['output', 'gen_ai.usage.output_tokens'],
    ] as const) {
      expect(ofType(type)?.attributes).toEqual({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'scripted:card',
        'gen_ai.response.model': 'scripted:card',
        'gen_ai.token.type': type,
      });
      expect(ofType(type)?.value.count).toBe(3);
      expect(ofType(type)?.value.sum).toBe(total(key));
    }
    expect(ofType('input')?.value.buckets.boundaries).toEqual([
      1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
    ]);
    const [durationPoint] = (duration?.dataPoints ?? []) as DataPoint<Histogram>[];
    expect(durationPoint?.value.count).toBe(3);
    expect(durationPoint?.value.sum).toBeLessThan(5);
    expect(durationPoint?.attributes['error.type']).toBeUndefined();
  });

  it('ends a failed model call as a chat span with error.type, and the run span with the run error', async () => {
    const failing: Model = {
      name: 'gpt-4o',
      generate: async () => {
        throw new ModelError({ kind: 'server', status: 500, message: 'the endpoint failed (500)' });
      },
    };
    const { result, spans, metrics } = await tracedRun({
      model: new ResilientModel({
        primary: failing,
        sleep: async () => {},
        semaphore: new ModelSemaphore({ limit: 1 }),
      }),
    });
    expect(result.stopReason).toBe('error');
    const root = spans.find((span) => span.name === 'invoke_agent shop-assistant');
    const chat = spans.find((span) => span.name === 'chat gpt-4o');
    expect(chat?.parentSpanContext?.spanId).toBe(root?.spanContext().spanId);
    expect(chat?.attributes).toMatchObject({
      'error.type': 'server',
      'arbiter.model.decisions': ['retry', 'retry', 'give_up'],
    });
    expect(chat?.attributes['gen_ai.response.model']).toBeUndefined();
    expect(chat?.status.code).toBe(otelApi.SpanStatusCode.ERROR);
    expect(root?.attributes).toMatchObject({ 'error.type': 'model_call_failed', 'arbiter.stop_reason': 'error' });
    expect(root?.status.code).toBe(otelApi.SpanStatusCode.ERROR);
    const duration = metrics.find((metric) => metric.descriptor.name === 'gen_ai.client.operation.duration');
    expect(duration?.dataPoints.map((point) => point.attributes['error.type'])).toEqual(['server']);
    expect(metrics.find((metric) => metric.descriptor.name === 'gen_ai.client.token.usage')).toBeUndefined();
  });

  it('exports nothing sensitive: no card number or email anywhere, by default or with arguments captured', async () => {
    for (const captureToolArguments of [false, true]) {
      const { spans } = await tracedRun({ model: scripted(), captureToolArguments });
      const exported = JSON.stringify(
        spans.map((span) => ({
          name: span.name,
          attributes: span.attributes,
          events: span.events,
          links: span.links,
          status: span.status,
          resource: span.resource.attributes,
        })),
      );
      for (const secret of secrets)
        expect(exported, `captureToolArguments: ${captureToolArguments}`).not.toContain(secret);
      const captured = spans
        .map((span) => span.attributes['gen_ai.tool.call.arguments'])
        .filter((value) => value !== undefined);
      if (!captureToolArguments) {
        expect(captured).toEqual([]);
        continue;
      }
      expect(captured).toEqual([
        '{"customer_ref":"C-1001","email":"[redacted]","card_number":"[redacted]"}',
        '{"customer_ref":"C-1001","email":"[redacted]","card_number":"[redacted]"}',
        '{"order_id":"SO20260901","amount_cents":1200}',
      ]);
    }
  });

  it('exports a tool name the model made up, or an odd call id, as nothing the model wrote', async () => {
    let step = 0;
    const hostile: Model = {
      name: 'gpt-4o',
      generate: async () => {
        step += 1;
        if (step > 1)
          return {
            message: { role: 'assistant', content: 'Done.' },
            usage: { inputTokens: 1, outputTokens: 1 },
            finishReason: 'stop',
          };
        return {
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_x', type: 'function', function: { name: 'jane.doe@example.com', arguments: '{}' } },
              { id: 'call_y', type: 'function', function: { name: '4111111111111111', arguments: '{}' } },
              {
                id: 'id with jane.doe@example.com',
                type: 'function',
                function: {
                  name: 'update_payment_card',
                  arguments: '{"customer_ref":"C-1","email":"jane.doe@example.com","card_number":"4111111111111111"}',
                },
              },
            ],
          },
          usage: { inputTokens: 1, outputTokens: 1 },
          finishReason: 'tool_calls',
        };
      },
    };
    for (const captureToolArguments of [false, true]) {
      step = 0;
      const { spans } = await tracedRun({ model: hostile, captureToolArguments });
      const tools = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool');
      expect(tools.map((span) => [span.name, span.attributes['gen_ai.tool.call.id'] ?? null])).toEqual([
        ['execute_tool unknown', 'call_x'],
        ['execute_tool unknown', 'call_y'],
        ['execute_tool update_payment_card', null],
      ]);
      const exported = JSON.stringify(spans.map((span) => [span.name, span.attributes, span.events, span.status]));
      for (const secret of secrets) expect(exported).not.toContain(secret);
    }
  });

  it('exports an invented tool name that looks like a tool name as unknown without the tools option too', async () => {
    let step = 0;
    const inventing: Model = {
      name: 'gpt-4o',
      generate: async () => {
        step += 1;
        if (step > 1) {
          return {
            message: { role: 'assistant', content: 'Done.' },
            usage: { inputTokens: 1, outputTokens: 1 },
            finishReason: 'stop',
          };
        }
        return {
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_z', type: 'function', function: { name: 'transfer_all_funds', arguments: '{}' } }],
          },
          usage: { inputTokens: 1, outputTokens: 1 },
          finishReason: 'tool_calls',
        };
      },
    };
    const { spans } = await tracedRun({ model: inventing, withTools: false });
    const names = spans
      .filter((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool')
      .map((span) => span.name);
    expect(names).toEqual(['execute_tool unknown']);
  });

  it('is a no-op when @opentelemetry/api is not installed, and the run is unaffected', async () => {
    const bus = new EventBus();
    const missing = Object.assign(new Error("Cannot find package '@opentelemetry/api'"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    const otel = await startOpenTelemetry({ bus, load: () => Promise.reject(missing) });
    expect(otel.enabled).toBe(false);
    expect(otel.reason).toContain('@opentelemetry/api is not installed');
    const result = await runAgent({
      model: scripted(),
      tools: registry(),
      messages: [{ role: 'user', content: 'hello' }],
      events: bus,
    });
    expect(result.stopReason).not.toBe('error');
    otel.stop();
  });

  it('is a no-op when the module is not the OpenTelemetry API', async () => {
    const otel = await startOpenTelemetry({ bus: new EventBus(), load: async () => ({ trace: {} }) });
    expect(otel).toMatchObject({
      enabled: false,
      reason: '@opentelemetry/api does not look like the OpenTelemetry API',
    });
  });

  it('loads the real API by default and, with no SDK registered, records nothing and costs the run nothing', async () => {
    const bus = new EventBus();
    const otel = await startOpenTelemetry({ bus });
    expect(otel.enabled).toBe(true);
    const result = await runAgent({
      model: scripted(),
      tools: registry(),
      messages: [{ role: 'user', content: 'hi' }],
      events: bus,
    });
    expect(result.stopReason).not.toBe('error');
    otel.stop();
  });
});
