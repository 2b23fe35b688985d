/**
 * Events per second through the AG-UI path against arbiter's own SSE
 * encoding, in the same run, over the same events: one streamed answer of
 * 1,000 external events (run:start, a tool call with its progress and end,
 * text fragments over two model calls, run:end), shaped as a run's log is.
 *
 * - arbiter: `encodeRunEvents` (what `GET /v1/runs/:id/events` writes);
 * - AG-UI: `AgUiEventTranslator` (steps, text messages, tool calls, custom
 *   progress events; its session lookups answered from memory, so the
 *   figure is the translation and encoding, not the store) and
 *   `@ag-ui/encoder`'s `EventEncoder.encodeSSE` (what `POST /v1/ag-ui` writes).
 *
 * Figures: arbiter events in per second on each path, AG-UI events out per
 * second, and the ratio AG-UI / arbiter (how much of arbiter's own encoding
 * rate the AG-UI path keeps). Not a target of the issue: reported, not judged.
 */
import { EventEncoder } from '@ag-ui/encoder';
import type { ExternalEvent } from '../src/events/external-event.js';
import { AgUiEventTranslator, type AgUiRunView } from '../src/server/protocols/ag-ui/ag-ui-event-translator.js';
import { encodeRunEvents } from '../src/server/stream-run-events.js';
import { type BenchResult, formatRate, isMainModule, measureInterleaved } from './measure.js';

const eventCount = 1_000;
const iterations = 40;

/** The external events of one run: two model calls around a tool call, the answer streamed in fragments. */
function runEvents(): ExternalEvent[] {
  const runId = 'bench-run';
  let seq = 0;
  const at = Date.now();
  const envelope = () => ({ runId, seq: ++seq, at });
  const events: ExternalEvent[] = [{ type: 'run:start', ...envelope() }];
  events.push({ type: 'model:end', ...envelope(), step: 1, toolCalls: 1 });
  events.push({
    type: 'tool:proposed',
    ...envelope(),
    step: 1,
    toolCallId: 'call_1',
    tool: 'query_order',
    status: 'proposed',
  });
  events.push({
    type: 'tool:start',
    ...envelope(),
    step: 1,
    toolCallId: 'call_1',
    tool: 'query_order',
    status: 'running',
    text: 'Looking up your order…',
  });
  events.push({
    type: 'tool:end',
    ...envelope(),
    step: 1,
    toolCallId: 'call_1',
    tool: 'query_order',
    status: 'done',
    durationMs: 3,
  });
  while (events.length < eventCount - 2)
    events.push({ type: 'model:delta', ...envelope(), step: 2, text: 'Your order ' });
  events.push({ type: 'model:end', ...envelope(), step: 2, toolCalls: 0 });
  events.push({
    type: 'run:end',
    ...envelope(),
    stopReason: 'completed',
    steps: 2,
    durationMs: 900,
    usage: { inputTokens: 1200, outputTokens: 800, totalTokens: 2000 },
  });
  return events;
}

const view: AgUiRunView = {
  callArguments: async () => '{"order_id":"SO20260901"}',
  callResult: async () => '{"order_id":"SO20260901","status":"shipped"}',
  interrupts: async () => [],
};

/** Runs the benchmark; see the file's comment for what is measured. */
export async function runAgUiBench(): Promise<BenchResult> {
  const events = runEvents();
  const encoder = new EventEncoder();
  let bytes = 0;
  let agUiEvents = 0;
  const arbiterPath = () => {
    bytes += encodeRunEvents(events).length;
  };
  const agUiPath = async () => {
    agUiEvents = 0;
    const translator = new AgUiEventTranslator({
      threadId: 'bench-thread',
      runId: 'bench-ag-ui-run',
      arbiterRunId: 'bench-run',
      view,
      slots: { order_id: 'SO20260901' },
    });
    let text = '';
    const opening = translator.start();
    agUiEvents += opening.length;
    for (const event of opening) text += encoder.encodeSSE(event);
    for (const event of events) {
      for (const translated of await translator.translate(event)) {
        agUiEvents += 1;
        text += encoder.encodeSSE(translated);
      }
    }
    bytes += text.length;
  };
  const [arbiter, agUi] = await measureInterleaved({ operations: [arbiterPath, agUiPath], iterations });
  await agUiPath();
  const perRun = agUiEvents;
  const arbiterRate = (1e9 / (arbiter as { nanosecondsPerOperation: number }).nanosecondsPerOperation) * eventCount;
  const agUiRate = (1e9 / (agUi as { nanosecondsPerOperation: number }).nanosecondsPerOperation) * eventCount;
  const ratio = agUiRate / arbiterRate;
  return {
    lines: [
      `ag-ui: one run of ${eventCount.toLocaleString('en-US')} external events, encoded for the wire, same process, interleaved rounds`,
      `  arbiter SSE (encodeRunEvents): ${formatRate(arbiterRate)} events`,
      `  AG-UI (AgUiEventTranslator + @ag-ui/encoder EventEncoder.encodeSSE): ${formatRate(agUiRate)} arbiter events in, ` +
        `${formatRate(agUiRate * (perRun / eventCount))} AG-UI events out (${Math.round(perRun)} per run)`,
      `  AG-UI / arbiter: ${ratio.toFixed(3)} of arbiter's own encoding rate`,
    ],
    ratios: { 'ag_ui.encode_rate_vs_arbiter_sse': ratio },
    figures: {
      arbiterEventsPerSecond: Math.round(arbiterRate),
      agUiEventsInPerSecond: Math.round(agUiRate),
      agUiEventsPerRun: Math.round(perRun),
      bytesEncoded: bytes,
    },
  };
}

if (isMainModule(import.meta.url)) {
  const { lines, ratios } = await runAgUiBench();
  console.log(lines.join('\n'));
  console.log(JSON.stringify(ratios));
}
