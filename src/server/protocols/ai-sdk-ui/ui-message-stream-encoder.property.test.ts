import { readUIMessageStream, type UIMessage, type UIMessageChunk, uiMessageChunkSchema } from 'ai6';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stopReasons } from '../../../core/stop-reason.js';
import type { ExternalEvent, ExternalEventBody } from '../../../events/external-event.js';
import type { ToolCallFacts } from './run-tool-facts.js';
import type { UiMessageChunk } from './ui-message-chunk.js';
import { UiMessageStreamEncoder } from './ui-message-stream-encoder.js';

const runId = 'run-p';
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

/** One model call: text fragments, then tool calls that succeed or are refused. */
const stepShape = fc.record({
  deltas: fc.array(fc.string({ minLength: 1, maxLength: 6 }), { maxLength: 4 }),
  decision: fc.boolean(),
  calls: fc.array(fc.boolean(), { maxLength: 3 }),
});
const endShape = fc.oneof(
  fc.constantFrom(...stopReasons.filter((reason) => reason !== 'awaiting_approval' && reason !== 'error')),
  fc.constant('failed' as const),
);

interface StepShape {
  readonly deltas: readonly string[];
  readonly decision: boolean;
  /** Per call: answered (true) or refused by validation (false). */
  readonly calls: readonly boolean[];
}

function runOf(steps: readonly StepShape[], end: string) {
  const bodies: ExternalEventBody[] = [{ type: 'run:start' }];
  const facts = new Map<string, ToolCallFacts>();
  let calls = 0;
  for (const [index, step] of steps.entries()) {
    const number = index + 1;
    if (step.decision) {
      bodies.push({ type: 'model:decision', step: number, kind: 'retry', model: 'm', attempt: 1, delayMs: 5 });
    }
    for (const text of step.deltas) bodies.push({ type: 'model:delta', step: number, text });
    bodies.push({ type: 'model:end', step: number, toolCalls: step.calls.length });
    for (const ok of step.calls) {
      calls += 1;
      const toolCallId = `call-${calls}`;
      const tool = 'query_order';
      facts.set(toolCallId, {
        tool,
        input: { order_id: `SO${calls}` },
        result: ok ? `{"n":${calls}}` : `refused ${calls}`,
        output: { n: calls },
      });
      bodies.push({ type: 'tool:proposed', step: number, toolCallId, tool, status: 'proposed' });
      if (ok) {
        bodies.push({ type: 'tool:start', step: number, toolCallId, tool, status: 'running', text: 'Looking…' });
        bodies.push({ type: 'tool:end', step: number, toolCallId, tool, status: 'done', durationMs: 1 });
      } else {
        bodies.push({
          type: 'tool:error',
          step: number,
          toolCallId,
          tool,
          status: 'failed',
          stage: 'validation',
          code: 'invalid_arguments',
          retryable: true,
          text: 'Checking…',
        });
      }
    }
  }
  bodies.push(
    end === 'failed'
      ? { type: 'run:error', code: 'model_call_failed', text: 'It failed.' }
      : { type: 'run:end', stopReason: end as (typeof stopReasons)[number], steps: steps.length, durationMs: 1, usage },
  );
  const events = bodies.map((body, index) => ({ ...body, runId, seq: index + 1, at: index }) as ExternalEvent);
  return { events, facts };
}

async function encodeAll(
  events: readonly ExternalEvent[],
  facts: ReadonlyMap<string, ToolCallFacts>,
  sentThrough = 0,
): Promise<UiMessageChunk[]> {
  const encoder = new UiMessageStreamEncoder({
    messageId: runId,
    runId,
    audience: 'customer',
    sentThrough,
    facts: { load: () => facts },
  });
  const chunks = encoder.start();
  for (const event of events) chunks.push(...(await encoder.encode(event)));
  expect(encoder.done).toBe(true);
  return chunks;
}

describe('UiMessageStreamEncoder on any run', () => {
  it('sends chunks the protocol accepts, that rebuild every text and every call once', async () => {
    const schema = uiMessageChunkSchema();
    await fc.assert(
      fc.asyncProperty(fc.array(stepShape, { minLength: 1, maxLength: 4 }), endShape, async (steps, end) => {
        const { events, facts } = runOf(steps, end);
        const chunks = await encodeAll(events, facts);
        for (const chunk of chunks) expect((await schema.validate?.(chunk))?.success).toBe(true);
        expect(chunks.filter((chunk) => chunk.type === 'finish')).toHaveLength(1);
        expect(chunks.at(-1)?.type).toBe('finish');
        expect(chunks.filter((chunk) => chunk.type === 'start-step').length).toBe(
          chunks.filter((chunk) => chunk.type === 'finish-step').length,
        );
        const stream = new ReadableStream<UIMessageChunk>({
          start(controller) {
            for (const chunk of chunks) controller.enqueue(chunk as UIMessageChunk);
            controller.close();
          },
        });
        let message: UIMessage | undefined;
        for await (const snapshot of readUIMessageStream({ stream, onError: () => {} })) message = snapshot;
        const texts = steps.flatMap((step) => (step.deltas.length === 0 ? [] : [step.deltas.join('')]));
        expect(message?.parts.flatMap((part) => (part.type === 'text' ? [part.text] : []))).toEqual(texts);
        const toolStates = message?.parts.flatMap((part) =>
          part.type === 'tool-query_order' ? [[part.toolCallId, part.state]] : [],
        );
        expect(toolStates).toEqual(
          steps
            .flatMap((step) => step.calls)
            .map((ok, index) => [`call-${index + 1}`, ok ? 'output-available' : 'output-error']),
        );
      }),
      { numRuns: 60 },
    );
  });

  it('continues after any event exactly where the whole stream goes on: no gap, no duplicate', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepShape, { minLength: 1, maxLength: 3 }),
        endShape,
        fc.nat(),
        async (steps, end, cut) => {
          const { events, facts } = runOf(steps, end);
          const sentThrough = cut % (events.length + 1);
          const whole = await encodeAll(events, facts);
          const continuation = await encodeAll(events, facts, sentThrough);
          // What a client that saw the events up to the cut holds: the whole stream's chunks for them.
          const prefix = await (async () => {
            const encoder = new UiMessageStreamEncoder({
              messageId: runId,
              runId,
              audience: 'customer',
              facts: { load: () => facts },
            });
            const chunks = encoder.start();
            for (const event of events.slice(0, sentThrough)) chunks.push(...(await encoder.encode(event)));
            return chunks;
          })();
          expect([...prefix, ...continuation.slice(1)]).toEqual(whole);
        },
      ),
      { numRuns: 60 },
    );
  });
});
