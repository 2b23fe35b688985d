import { type BaseEvent, EventType, verifyEvents } from '@ag-ui/client';
import { EventSchemas } from '@ag-ui/core/schemas';
import { from, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { ExternalEvent, ExternalEventBody } from '../../../events/external-event.js';
import { AgUiEventTranslator, type AgUiRunView } from './ag-ui-event-translator.js';

const view: AgUiRunView = {
  callArguments: async () => '{"order_id":"SO20260901"}',
  callResult: async (toolCallId) => (toolCallId === 'late' ? undefined : '{"status":"shipped"}'),
  interrupts: async () => [],
};

/** Translates `bodies` as one run's events; every AG-UI event checked by the schema and by the client's own verifier. */
async function translate(bodies: readonly ExternalEventBody[], runView: AgUiRunView = view): Promise<BaseEvent[]> {
  const translator = new AgUiEventTranslator({
    threadId: 'thread-1',
    runId: 'ag-ui-run-1',
    arbiterRunId: 'run-1',
    view: runView,
    slots: {},
  });
  const out = translator.start();
  let seq = 0;
  for (const body of bodies) {
    seq += 1;
    out.push(...(await translator.translate({ ...body, runId: 'run-1', seq, at: 1_000 + seq } as ExternalEvent)));
  }
  for (const event of out) EventSchemas.parse(event);
  return lastValueFrom(from(out).pipe(verifyEvents(false), toArray()));
}

const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
const end = (stopReason: 'completed' | 'aborted' | 'awaiting_approval'): ExternalEventBody => ({
  type: 'run:end',
  stopReason,
  steps: 1,
  durationMs: 5,
  usage,
});

describe('AgUiEventTranslator', () => {
  it('closes the text message and the step of a run aborted mid-answer, and finishes it cancelled', async () => {
    const events = await translate([
      { type: 'run:start' },
      { type: 'model:delta', step: 1, text: 'Your order ' },
      end('aborted'),
    ]);
    expect(events.map((event) => event.type)).toEqual([
      EventType.RUN_STARTED,
      EventType.STATE_SNAPSHOT,
      EventType.STEP_STARTED,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.STEP_FINISHED,
      EventType.RUN_FINISHED,
    ]);
    expect(events.at(-1)).toMatchObject({ outcome: { type: 'cancelled' }, result: { stopReason: 'aborted' } });
  });

  it('answers a call that failed validation with the recorded text, or its own sentence while none is recorded', async () => {
    const events = await translate([
      { type: 'run:start' },
      { type: 'model:end', step: 1, toolCalls: 2 },
      { type: 'tool:proposed', step: 1, toolCallId: 'first', tool: 'query_order', status: 'proposed' },
      { type: 'tool:proposed', step: 1, toolCallId: 'late', tool: 'query_order', status: 'proposed' },
      { type: 'tool:end', step: 1, toolCallId: 'first', tool: 'query_order', status: 'done', durationMs: 1 },
      {
        type: 'tool:error',
        step: 1,
        toolCallId: 'late',
        tool: 'query_order',
        status: 'failed',
        stage: 'validation',
        code: 'invalid_arguments',
        retryable: true,
        text: 'Fixing the request…',
      },
      { type: 'model:delta', step: 2, text: 'Done.' },
      { type: 'model:end', step: 2, toolCalls: 0 },
      end('completed'),
    ]);
    const results = events.filter((event) => event.type === EventType.TOOL_CALL_RESULT);
    expect(results.map((event) => [event.toolCallId, event.content])).toEqual([
      ['first', '{"status":"shipped"}'],
      ['late', '{"status":"failed","text":"Fixing the request…"}'],
    ]);
    // Results come before the next model call's step: the model saw them before it answered.
    const secondStep = events.findIndex(
      (event) => event.type === EventType.STEP_STARTED && event.stepName === 'model_call_2',
    );
    expect(events.findIndex((event) => event.type === EventType.TOOL_CALL_RESULT)).toBeLessThan(secondStep);
    expect(events.at(-1)).toMatchObject({
      outcome: { type: 'success' },
      usage: [{ inputTokens: 10, outputTokens: 5 }],
    });
  });

  it('finishes a run waiting for approval with one interrupt per pending approval, and as success when none is left', async () => {
    const interrupt = { id: 'ap_1', reason: 'tool_approval', toolCallId: 'call_1', metadata: { tool: 'apply_refund' } };
    const waiting = await translate([{ type: 'run:start' }, end('awaiting_approval')], {
      ...view,
      interrupts: async () => [interrupt],
    });
    expect(waiting.at(-1)).toMatchObject({ outcome: { type: 'interrupt', interrupts: [interrupt] } });
    const decidedMeanwhile = await translate([{ type: 'run:start' }, end('awaiting_approval')]);
    expect(decidedMeanwhile.at(-1)).toMatchObject({ outcome: { type: 'success' } });
  });

  it('ends a failed run with RUN_ERROR and translates nothing after it', async () => {
    const translator = new AgUiEventTranslator({ threadId: 't', runId: 'r', arbiterRunId: 'a', view, slots: {} });
    const failed = await translator.translate({
      type: 'run:error',
      code: 'model_call_failed',
      text: 'Something went wrong.',
      runId: 'a',
      seq: 1,
      at: 1,
    });
    expect(failed).toEqual([
      expect.objectContaining({
        type: EventType.RUN_ERROR,
        code: 'model_call_failed',
        message: 'Something went wrong.',
      }),
    ]);
    expect(translator.finished).toBe(true);
    expect(await translator.translate({ type: 'model:delta', step: 1, text: 'x', runId: 'a', seq: 2, at: 2 })).toEqual(
      [],
    );
  });
});
