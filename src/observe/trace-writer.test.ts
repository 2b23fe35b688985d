import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { openShopDatabase } from '../../examples/shop/shop-database.js';
import { createShopTools, shopGateRules } from '../../examples/shop/shop-tools.js';
import { ModelError } from '../errors/model-error.js';
import { EventBus } from '../events/event-bus.js';
import { createTierGate } from '../gate/tier-gate.js';
import { runAgent } from '../loop/run-agent.js';
import type { Model } from '../models/model.js';
import { ResilientModel } from '../models/resilient-model.js';
import type { Script } from '../models/script.js';
import { ScriptedModel } from '../models/scripted-model.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { digestArguments, digestResult } from './run-trace.js';
import { parseTraceLines, type TraceLine } from './trace-line.js';
import { createTraceWriter } from './trace-writer.js';

const alice = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] } as const;

const script: Script = {
  name: 'trace',
  turns: [
    {
      steps: [
        { call: { name: 'query_order', arguments: { order_id: 12345 } } },
        {
          call: {
            name: 'apply_refund',
            arguments: { order_id: 'SO20260902', amount_cents: 27900, reason_category: 'damaged', reason: 'Broken.' },
          },
        },
        { say: 'Done.' },
      ],
    },
  ],
};

async function tracedRun(write: (line: string) => void) {
  const registry = new ToolRegistry();
  for (const tool of createShopTools({ database: openShopDatabase({ path: ':memory:' }) })) registry.register(tool);
  const bus = new EventBus();
  const trace = createTraceWriter({ bus, write });
  const result = await runAgent({
    model: new ScriptedModel({ script }),
    tools: registry,
    messages: [{ role: 'user', content: 'Order SO20260901, and refund the teapot on SO20260902.' }],
    principal: alice,
    events: bus,
    gate: createTierGate({ rules: shopGateRules, tools: registry }),
    journal: trace.journal(),
  });
  await new Promise((resolve) => setImmediate(resolve));
  trace.stop();
  return result;
}

/** Timings, token estimates and digests vary or are long: replaced so the snapshot shows the shape. */
function stable(line: TraceLine): unknown {
  return JSON.parse(
    JSON.stringify(line, (key, value: unknown) =>
      ['elapsedMs', 'modelMs', 'at', 'durationMs'].includes(key)
        ? 0
        : key.endsWith('Tokens')
          ? typeof value === 'number' && value > 0
            ? '<tokens>'
            : value
          : key === 'runId'
            ? '<run>'
            : key.endsWith('Digest')
              ? '<sha256>'
              : value,
    ),
  );
}

describe('createTraceWriter', () => {
  it('writes one line per step with the tool, argument digest, gate decision and result digest, then the run', async () => {
    const lines: string[] = [];
    const result = await tracedRun((line) => lines.push(line));
    const trace = parseTraceLines(lines.join('\n'));
    expect(trace.map(stable)).toMatchInlineSnapshot(`
      [
        {
          "at": 0,
          "calls": [
            {
              "argumentsDigest": "<sha256>",
              "code": "wrong_type",
              "elapsedMs": 0,
              "gate": "not_checked",
              "resultDigest": "<sha256>",
              "stage": "validation",
              "status": "error",
              "tool": "query_order",
              "toolCallId": "call_1",
            },
          ],
          "elapsedMs": 0,
          "finishReason": "tool_calls",
          "inputTokens": "<tokens>",
          "model": "scripted:trace",
          "modelMs": 0,
          "outputTokens": "<tokens>",
          "runId": "<run>",
          "step": 1,
          "type": "step",
        },
        {
          "at": 0,
          "calls": [
            {
              "argumentsDigest": "<sha256>",
              "elapsedMs": 0,
              "gate": "allowed",
              "resultDigest": "<sha256>",
              "status": "ok",
              "tool": "query_order",
              "toolCallId": "call_2",
            },
          ],
          "elapsedMs": 0,
          "finishReason": "tool_calls",
          "inputTokens": "<tokens>",
          "model": "scripted:trace",
          "modelMs": 0,
          "outputTokens": "<tokens>",
          "runId": "<run>",
          "step": 2,
          "type": "step",
        },
        {
          "at": 0,
          "calls": [
            {
              "argumentsDigest": "<sha256>",
              "code": "no_approver",
              "elapsedMs": 0,
              "gate": "denied",
              "resultDigest": "<sha256>",
              "stage": "gate",
              "status": "error",
              "tool": "apply_refund",
              "toolCallId": "call_3",
            },
          ],
          "elapsedMs": 0,
          "finishReason": "tool_calls",
          "inputTokens": "<tokens>",
          "model": "scripted:trace",
          "modelMs": 0,
          "outputTokens": "<tokens>",
          "runId": "<run>",
          "step": 3,
          "type": "step",
        },
        {
          "at": 0,
          "calls": [],
          "elapsedMs": 0,
          "finishReason": "stop",
          "inputTokens": "<tokens>",
          "model": "scripted:trace",
          "modelMs": 0,
          "outputTokens": "<tokens>",
          "runId": "<run>",
          "step": 4,
          "type": "step",
        },
        {
          "at": 0,
          "durationMs": 0,
          "inputTokens": "<tokens>",
          "model": "scripted:trace",
          "outputTokens": "<tokens>",
          "runId": "<run>",
          "steps": 4,
          "stopReason": "completed",
          "type": "run",
        },
      ]
    `);
    const calls = trace.flatMap((line) => (line.type === 'step' ? line.calls : []));
    const toolMessages = result.messages.flatMap((message) => (message.role === 'tool' ? [message] : []));
    const assistantCalls = result.messages.flatMap((message) =>
      message.role === 'assistant' ? (message.tool_calls ?? []) : [],
    );
    for (const [index, call] of calls.entries()) {
      expect(call.argumentsDigest).toBe(digestArguments(assistantCalls[index]?.function.arguments ?? ''));
      expect(call.resultDigest).toBe(digestResult(toolMessages[index]?.content ?? ''));
    }
  });

  it('never writes arguments or results, only their digests', async () => {
    const lines: string[] = [];
    await tracedRun((line) => lines.push(line));
    const text = lines.join('\n');
    expect(text).not.toContain('SO2026090');
    expect(text).not.toContain('Broken.');
    expect(text).not.toContain('Alice');
  });

  it('writes to a stream, one line per record', async () => {
    const stream = new PassThrough();
    const chunks: string[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
    const registry = new ToolRegistry();
    const bus = new EventBus();
    const trace = createTraceWriter({ bus, write: stream });
    await runAgent({
      model: new ScriptedModel({ script: { name: 'plain', turns: [{ steps: [{ say: 'Hello.' }] }] } }),
      tools: registry,
      messages: [{ role: 'user', content: 'Hi' }],
      events: bus,
    });
    await new Promise((resolve) => setImmediate(resolve));
    trace.stop();
    const text = chunks.join('');
    expect(text.endsWith('\n')).toBe(true);
    expect(parseTraceLines(text).map((line) => line.type)).toEqual(['step', 'run']);
  });
});

describe('parseTraceLines', () => {
  it('skips blank lines, other logs and a half-written last line', () => {
    const text = [
      '{"type":"run","runId":"r1","model":"m","stopReason":"completed","steps":1,"inputTokens":1,"outputTokens":1,"durationMs":5,"at":1}',
      '',
      '{"level":"info","msg":"server started"}',
      '{"type":"step","runId":"r2","step":1,"calls":[',
    ].join('\n');
    expect(parseTraceLines(text).map((line) => line.runId)).toEqual(['r1']);
  });

  it('records the retries and fallback of a resilient model in the step that made them', async () => {
    const bus = new EventBus();
    const lines: string[] = [];
    const trace = createTraceWriter({ bus, write: (line) => lines.push(line) });
    const failing: Model = {
      name: 'primary-model',
      generate: async () => {
        throw new ModelError({ kind: 'server', status: 503, message: 'unavailable' });
      },
    };
    const fallback: Model = {
      name: 'fallback-model',
      generate: async () => ({
        message: { role: 'assistant', content: 'Hello.' },
        usage: { inputTokens: 5, outputTokens: 2 },
        finishReason: 'stop',
      }),
    };
    const model = new ResilientModel({ primary: failing, fallback, sleep: async () => {} });
    await runAgent({ model, tools: new ToolRegistry(), messages: [{ role: 'user', content: 'Hi' }], events: bus });
    await bus.idle();
    trace.stop();
    const [step] = parseTraceLines(lines.join('\n')).filter((line) => line.type === 'step');
    expect(step?.type === 'step' && step.decisions?.map((decision) => decision.kind)).toEqual([
      'retry',
      'retry',
      'fallback',
    ]);
    expect(step?.type === 'step' && step.model).toBe('fallback-model');
  });
});
