import { readUIMessageStream, type UIMessage, type UIMessageChunk, uiMessageChunkSchema } from 'ai6';
import { describe, expect, it } from 'vitest';
import type { ExternalEvent, ExternalEventBody } from '../../../events/external-event.js';
import type { ToolCallFacts } from './run-tool-facts.js';
import type { UiMessageChunk } from './ui-message-chunk.js';
import { type ChatAudience, UiMessageStreamEncoder } from './ui-message-stream-encoder.js';

const runId = 'run-1';

function events(...bodies: ExternalEventBody[]): ExternalEvent[] {
  return bodies.map((body, index) => ({ ...body, runId, seq: index + 1, at: 1000 + index }) as ExternalEvent);
}

const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
const facts = new Map<string, ToolCallFacts>([
  [
    'call-1',
    {
      tool: 'query_order',
      input: { order_id: 'SO20260901' },
      result: '{"order_id":"SO20260901"}',
      output: { order_id: 'SO20260901' },
    },
  ],
]);

async function encode(
  list: readonly ExternalEvent[],
  { audience = 'customer' as ChatAudience, sentThrough = 0 } = {},
): Promise<UiMessageChunk[]> {
  const encoder = new UiMessageStreamEncoder({
    messageId: runId,
    runId,
    audience,
    sentThrough,
    facts: { load: () => facts },
  });
  const chunks = encoder.start();
  for (const event of list) chunks.push(...(await encoder.encode(event)));
  return chunks;
}

/** Each chunk checked by the `ai` package's schema, then read into a message by its reader. */
async function read(chunks: readonly UiMessageChunk[]): Promise<UIMessage> {
  const schema = uiMessageChunkSchema();
  for (const chunk of chunks)
    expect(await schema.validate?.(chunk), JSON.stringify(chunk)).toMatchObject({ success: true });
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk as UIMessageChunk);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream, terminateOnError: true })) last = message;
  if (last === undefined) throw new Error('no message');
  return last;
}

describe('UiMessageStreamEncoder', () => {
  it('sends an abort part, then finish with the stop reason, when the run was aborted', async () => {
    const chunks = await encode(
      events(
        { type: 'run:start' },
        { type: 'model:delta', step: 1, text: 'Let me' },
        { type: 'run:end', stopReason: 'aborted', steps: 1, durationMs: 5, usage },
      ),
    );
    expect(chunks.slice(-4)).toEqual([
      { type: 'text-end', id: 'text-2' },
      { type: 'finish-step' },
      { type: 'abort', reason: 'the run was aborted' },
      { type: 'finish', finishReason: 'other', messageMetadata: { runId, stopReason: 'aborted', steps: 1, usage } },
    ]);
    const message = await read(chunks);
    expect(message.metadata).toMatchObject({ stopReason: 'aborted' });
  });

  it('sends an error part with the sentence for people and the code in the metadata when the run failed', async () => {
    const chunks = await encode(
      events({ type: 'run:start' }, { type: 'run:error', code: 'model_call_failed', text: 'Something went wrong.' }),
    );
    expect(chunks.slice(-2)).toEqual([
      { type: 'error', errorText: 'Something went wrong.' },
      {
        type: 'finish',
        finishReason: 'error',
        messageMetadata: { runId, stopReason: 'error', errorCode: 'model_call_failed' },
      },
    ]);
    // The reader raises the error part as the client's error.
    await expect(read(chunks)).rejects.toThrow('Something went wrong.');
  });

  it('answers a call at the end of its step and keeps progress in one data part per call', async () => {
    const chunks = await encode(
      events(
        { type: 'run:start' },
        { type: 'model:end', step: 1, toolCalls: 1 },
        { type: 'tool:proposed', step: 1, toolCallId: 'call-1', tool: 'query_order', status: 'proposed' },
        { type: 'tool:start', step: 1, toolCallId: 'call-1', tool: 'query_order', status: 'running', text: 'Looking…' },
        { type: 'tool:end', step: 1, toolCallId: 'call-1', tool: 'query_order', status: 'done', durationMs: 3 },
        { type: 'model:delta', step: 2, text: 'Shipped.' },
        { type: 'model:end', step: 2, toolCalls: 0 },
        { type: 'run:end', stopReason: 'completed', steps: 2, durationMs: 9, usage },
      ),
    );
    const message = await read(chunks);
    expect(message.parts).toEqual([
      { type: 'step-start' },
      expect.objectContaining({
        type: 'tool-query_order',
        state: 'output-available',
        input: { order_id: 'SO20260901' },
        output: { order_id: 'SO20260901' },
      }),
      {
        type: 'data-progress',
        id: 'progress-call-1',
        data: { toolCallId: 'call-1', tool: 'query_order', status: 'done', text: 'Looking…' },
      },
      { type: 'step-start' },
      expect.objectContaining({ type: 'text', text: 'Shipped.', state: 'done' }),
    ]);
  });

  it('sends nothing the client already has (sentThrough), and picks up the calls it knows', async () => {
    const list = events(
      { type: 'run:start' },
      { type: 'model:end', step: 1, toolCalls: 1 },
      { type: 'tool:proposed', step: 1, toolCallId: 'call-1', tool: 'query_order', status: 'proposed' },
      {
        type: 'approval:required',
        step: 1,
        toolCallId: 'call-1',
        approvalId: 'approval-1',
        tool: 'query_order',
        status: 'awaiting_approval',
        arguments: {},
        reason: 'a person must look',
        text: 'Waiting for approval…',
      },
      { type: 'run:end', stopReason: 'awaiting_approval', steps: 1, durationMs: 5, usage },
      {
        type: 'approval:resolved',
        toolCallId: 'call-1',
        approvalId: 'approval-1',
        tool: 'query_order',
        status: 'approved',
        text: 'Approved.',
      },
      { type: 'tool:start', step: 1, toolCallId: 'call-1', tool: 'query_order', status: 'running', text: 'Looking…' },
      { type: 'tool:end', step: 1, toolCallId: 'call-1', tool: 'query_order', status: 'done', durationMs: 3 },
      { type: 'run:end', stopReason: 'completed', steps: 1, durationMs: 9, usage },
    );
    const whole = await encode(list, { audience: 'approver' });
    expect(whole.filter((chunk) => chunk.type === 'tool-approval-request')).toEqual([
      { type: 'tool-approval-request', approvalId: 'approval-1', toolCallId: 'call-1' },
    ]);
    const continuation = await encode(list, { audience: 'approver', sentThrough: 5 });
    expect(continuation.map((chunk) => chunk.type)).toEqual([
      'start',
      'start-step',
      'data-progress',
      'data-progress',
      'tool-output-available',
      'finish-step',
      'finish',
    ]);
    const customer = await encode(list);
    expect(customer.some((chunk) => chunk.type === 'tool-approval-request')).toBe(false);
    expect(
      customer.filter((chunk) => chunk.type === 'data-approval').map((chunk) => (chunk as { data: unknown }).data),
    ).toEqual([
      {
        toolCallId: 'call-1',
        tool: 'query_order',
        status: 'awaiting_approval',
        text: 'Waiting for approval…',
        reason: 'a person must look',
      },
      { toolCallId: 'call-1', tool: 'query_order', status: 'approved', text: 'Approved.' },
    ]);
    await read(customer);
  });
});
