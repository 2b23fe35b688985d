/**
 * The AI SDK UI message stream encoder against arbiter's own SSE encoding,
 * on the same events in the same process: how many run events a second each
 * turns into SSE text. One run shaped like a streaming answer — a tool call
 * (proposed, started, ended, answered at the end of its step), then
 * `answerDeltas` text fragments, then `run:end` — encoded whole per
 * operation, the two interleaved round by round. Tool inputs and outputs
 * come from memory here (the server reads them from the session, twice a
 * tool step), so the figure is the encoding itself.
 */
import type { ExternalEvent, ExternalEventBody } from '../src/events/external-event.js';
import type { ToolCallFacts } from '../src/server/protocols/ai-sdk-ui/run-tool-facts.js';
import { encodeUiMessageChunk, uiMessageStreamDone } from '../src/server/protocols/ai-sdk-ui/ui-message-chunk.js';
import { UiMessageStreamEncoder } from '../src/server/protocols/ai-sdk-ui/ui-message-stream-encoder.js';
import { type BenchResult, formatRate, isMainModule, measureInterleaved } from './measure.js';

const answerDeltas = 1_000;
const runId = 'bench-run';
const usage = { inputTokens: 100, outputTokens: 900, totalTokens: 1000 };

const bodies: ExternalEventBody[] = [
  { type: 'run:start' },
  { type: 'model:end', step: 1, toolCalls: 1 },
  { type: 'tool:proposed', step: 1, toolCallId: 'call-1', tool: 'query_order', status: 'proposed' },
  { type: 'tool:start', step: 1, toolCallId: 'call-1', tool: 'query_order', status: 'running', text: 'Looking up…' },
  { type: 'tool:end', step: 1, toolCallId: 'call-1', tool: 'query_order', status: 'done', durationMs: 3 },
  ...Array.from({ length: answerDeltas }, (): ExternalEventBody => ({ type: 'model:delta', step: 2, text: 'tok ' })),
  { type: 'model:end', step: 2, toolCalls: 0 },
  { type: 'run:end', stopReason: 'completed', steps: 2, durationMs: 10, usage },
];
const events: ExternalEvent[] = bodies.map(
  (body, index) => ({ ...body, runId, seq: index + 1, at: 1_700_000_000_000 + index }) as ExternalEvent,
);
const facts = new Map<string, ToolCallFacts>([
  [
    'call-1',
    {
      tool: 'query_order',
      input: { order_id: 'SO20260901' },
      result: '{"order_id":"SO20260901","status":"shipped"}',
      output: { order_id: 'SO20260901', status: 'shipped' },
    },
  ],
]);

let sink = 0;

/** arbiter's own SSE stream: `id:` = seq and the event as JSON (`streamRunEvents`). */
function encodeArbiterSse(): void {
  for (const event of events) sink += `id: ${event.seq}\ndata: ${JSON.stringify(event)}\n\n`.length;
}

/** The UI message stream: the encoder's chunks, each a `data:` line, then `[DONE]` (`streamUiMessages`). */
async function encodeUiStream(): Promise<void> {
  const encoder = new UiMessageStreamEncoder({
    messageId: runId,
    runId,
    audience: 'customer',
    facts: { load: () => facts },
  });
  for (const chunk of encoder.start()) sink += encodeUiMessageChunk(chunk).length;
  for (const event of events) {
    const encoded = encoder.encode(event);
    for (const chunk of encoded instanceof Promise ? await encoded : encoded)
      sink += encodeUiMessageChunk(chunk).length;
  }
  if (!encoder.done) throw new Error('the encoder did not finish the message');
  sink += uiMessageStreamDone.length;
}

export async function runUiStreamBench(): Promise<BenchResult> {
  const [arbiter, uiStream] = await measureInterleaved({
    operations: [encodeArbiterSse, encodeUiStream],
    iterations: 20,
  });
  if (arbiter === undefined || uiStream === undefined || sink === 0) throw new Error('nothing was measured');
  const perSecond = (nanosecondsPerRun: number) => (events.length * 1e9) / nanosecondsPerRun;
  const arbiterRate = perSecond(arbiter.nanosecondsPerOperation);
  const uiRate = perSecond(uiStream.nanosecondsPerOperation);
  return {
    lines: [
      `ui-stream: run events encoded as SSE, one run of ${events.length} events (a tool call, ${answerDeltas} text deltas), interleaved, median of 15 rounds:`,
      `  arbiter's own SSE (id + event JSON)           ${formatRate(arbiterRate)} events`,
      `  AI SDK UI message stream (encoder + data:)    ${formatRate(uiRate)} events`,
      `  UI stream / arbiter SSE: ${(uiRate / arbiterRate).toFixed(2)}`,
    ],
    ratios: { uiStreamVersusArbiterSse: uiRate / arbiterRate },
    figures: { arbiterSseEventsPerSecond: arbiterRate, uiStreamEventsPerSecond: uiRate, eventsPerRun: events.length },
  };
}

if (isMainModule(import.meta.url)) {
  const { lines } = await runUiStreamBench();
  for (const line of lines) console.log(line);
}
