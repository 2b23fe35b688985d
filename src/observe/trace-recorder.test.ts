import { describe, expect, it } from 'vitest';
import type { AgentEvent, AgentEventBody } from '../events/agent-event.js';
import { EventBus } from '../events/event-bus.js';
import { runAgent } from '../loop/run-agent.js';
import { ScriptedModel } from '../models/scripted-model.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { createRunCollector } from './run-collector.js';
import { observeRunTrace, observeTraceLines } from './run-observation.js';
import type { RunTrace } from './run-trace.js';
import { runLine, stepLine, type TraceLine } from './trace-line.js';
import { TraceRecorder } from './trace-recorder.js';

const usage = { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0, totalTokens: 15 };

/** Numbers events as a run would, 10 ms apart. */
function eventsOf(runId: string, bodies: readonly AgentEventBody[], { seq = 0, at = 1_000 } = {}): AgentEvent[] {
  return bodies.map((body, index) => ({ ...body, runId, seq: seq + index + 1, at: at + index * 10 }) as AgentEvent);
}

const approvalRun: AgentEventBody[] = [
  { type: 'run:start', sessionId: 's1', model: 'gpt' },
  { type: 'model:end', step: 1, usage, finishReason: 'tool_calls', toolCalls: 2 },
  { type: 'tool:proposed', step: 1, toolCallId: 'a', tool: 'query_order', arguments: '{"order_id":"SO1"}' },
  { type: 'tool:start', step: 1, toolCallId: 'a', tool: 'query_order' },
  { type: 'tool:end', step: 1, toolCallId: 'a', tool: 'query_order', durationMs: 3 },
  { type: 'tool:proposed', step: 1, toolCallId: 'b', tool: 'apply_refund', arguments: '{"amount_cents":9000}' },
  {
    type: 'approval:required',
    step: 1,
    toolCallId: 'b',
    approvalId: 'ap1',
    tool: 'apply_refund',
    arguments: {},
    rule: 'refund_50_yuan_or_more',
    reason: 'A person must decide.',
  },
  { type: 'run:end', stopReason: 'awaiting_approval', steps: 1, usage, durationMs: 60 },
];

const resumedRun: AgentEventBody[] = [
  { type: 'run:start', sessionId: 's1', model: 'gpt' },
  { type: 'tool:proposed', step: 1, toolCallId: 'b', tool: 'apply_refund', arguments: '{"amount_cents":9000}' },
  {
    type: 'approval:resolved',
    toolCallId: 'b',
    approvalId: 'ap1',
    tool: 'apply_refund',
    decision: 'approved',
    approver: 'bob',
  },
  { type: 'tool:start', step: 1, toolCallId: 'b', tool: 'apply_refund' },
  { type: 'tool:end', step: 1, toolCallId: 'b', tool: 'apply_refund', durationMs: 4 },
  { type: 'model:end', step: 2, usage, finishReason: 'stop', toolCalls: 0 },
  { type: 'run:end', stopReason: 'completed', steps: 2, usage: { ...usage, inputTokens: 20 }, durationMs: 40 },
];

function record(...events: AgentEvent[][]) {
  const runs: RunTrace[] = [];
  const lines: TraceLine[] = [];
  const recorder = new TraceRecorder({
    onStep: (run, step) => lines.push(stepLine(run, step)),
    onRun: (run) => {
      runs.push(run);
      const line = runLine(run);
      if (line !== undefined) lines.push(line);
    },
  });
  for (const event of events.flat()) recorder.record(event);
  return { runs, lines };
}

describe('TraceRecorder', () => {
  it('follows a call through approval, suspension and the resumed run', () => {
    const { runs, lines } = record(
      eventsOf('r1', approvalRun),
      eventsOf('r1', resumedRun, { seq: approvalRun.length, at: 5_000 }),
    );
    expect(
      runs.map((run) =>
        run.steps.map((step) => [
          step.step,
          step.finishReason,
          step.calls.map((call) => [call.toolCallId, call.gate, call.status]),
        ]),
      ),
    ).toEqual([
      [
        [
          1,
          'tool_calls',
          [
            ['a', 'allowed', 'ok'],
            ['b', 'approval_required', 'pending'],
          ],
        ],
      ],
      [
        [1, 'resumed', [['b', 'approved', 'ok']]],
        [2, 'stop', []],
      ],
    ]);
    const [first] = runs;
    expect(first?.steps[0]).toMatchObject({ startedAt: 1_000, modelEndedAt: 1_010, endedAt: 1_060 });
    // The call proposed again after the resume counts once, with its final outcome.
    const [observation] = observeTraceLines(lines);
    expect(observation).toMatchObject({
      runId: 'r1',
      stopReason: 'completed',
      steps: 2,
      inputTokens: 20,
      tools: { calls: 2, succeeded: 2, repeated: 0, gateDenials: 0, approvalsRequired: 0 },
    });
  });

  it('marks gate refusals and keeps the refusal a person made', () => {
    const { runs } = record(
      eventsOf('r2', [
        { type: 'run:start', sessionId: undefined, model: 'gpt' },
        { type: 'model:end', step: 1, usage, finishReason: 'tool_calls', toolCalls: 3 },
        { type: 'tool:proposed', step: 1, toolCallId: 'x', tool: 'apply_refund', arguments: '{"amount_cents":999900}' },
        {
          type: 'tool:error',
          step: 1,
          toolCallId: 'x',
          tool: 'apply_refund',
          stage: 'gate',
          code: 'refund_over_hard_cap',
          retryable: false,
          durationMs: 1,
        },
        { type: 'tool:proposed', step: 1, toolCallId: 'y', tool: 'apply_refund', arguments: '{"amount_cents":9000}' },
        {
          type: 'approval:resolved',
          toolCallId: 'y',
          approvalId: 'ap',
          tool: 'apply_refund',
          decision: 'rejected',
          approver: 'bob',
        },
        {
          type: 'tool:error',
          step: 1,
          toolCallId: 'y',
          tool: 'apply_refund',
          stage: 'gate',
          code: 'rejected_by_approver',
          retryable: false,
          durationMs: 1,
        },
        { type: 'tool:proposed', step: 1, toolCallId: 'z', tool: 'apply_refund', arguments: '{"amount_cents":9000}' },
        { type: 'tool:end', step: 1, toolCallId: 'z', tool: 'apply_refund', durationMs: 1 },
        { type: 'run:error', code: 'infrastructure_error', message: 'database down', steps: 1, usage },
      ]),
    );
    const [run] = runs;
    expect(run?.steps[0]?.calls.map((call) => [call.toolCallId, call.gate, call.code ?? null])).toEqual([
      ['x', 'denied', 'refund_over_hard_cap'],
      ['y', 'rejected', 'rejected_by_approver'],
      // A replayed idempotent result ends without starting; it passed the gate.
      ['z', 'allowed', null],
    ]);
    expect(run?.end).toMatchObject({ stopReason: 'error', errorCode: 'infrastructure_error' });
    expect(observeRunTrace(run as RunTrace)?.tools).toEqual({
      calls: 3,
      succeeded: 1,
      repeated: 1,
      gateDenials: 2,
      approvalsRequired: 0,
    });
  });

  it('ignores events of runs it did not see start', () => {
    const { runs } = record(eventsOf('late', approvalRun.slice(1)));
    expect(runs).toEqual([]);
  });
});

describe('createRunCollector', () => {
  it('keeps an observation of each run that ends on the bus, the last `limit` of them', async () => {
    const bus = new EventBus();
    const collector = createRunCollector({ bus, limit: 2 });
    const model = new ScriptedModel({ script: { name: 'hi', turns: [{ steps: [{ say: 'Hello.' }] }] } });
    for (let index = 0; index < 3; index += 1) {
      await runAgent({
        model,
        tools: new ToolRegistry(),
        messages: [{ role: 'user', content: 'Hi' }],
        events: bus,
        runId: `run-${index}`,
      });
    }
    await new Promise((resolve) => setImmediate(resolve));
    collector.stop();
    expect(collector.runs().map((run) => [run.runId, run.stopReason, run.steps])).toEqual([
      ['run-1', 'completed', 1],
      ['run-2', 'completed', 1],
    ]);
  });
});
