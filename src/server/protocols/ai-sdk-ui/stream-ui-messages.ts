import type { Context } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import type { StopReason } from '../../../core/stop-reason.js';
import type { ExternalEvent } from '../../../events/external-event.js';
import type { ServerRunStatus } from '../../../store/server-run.js';
import { pumpRunEvents } from '../../pump-run-events.js';
import { isTerminalEvent } from '../../run-manager.js';
import type { ServerMetrics } from '../../server-metrics.js';
import type { FollowRun } from '../../stream-run-events.js';
import {
  encodeUiMessageChunk,
  type UiMessageChunk,
  uiMessageStreamDone,
  uiMessageStreamHeaders,
} from './ui-message-chunk.js';
import type { UiMessageStreamEncoder } from './ui-message-stream-encoder.js';

export interface StreamUiMessagesOptions {
  readonly runId: string;
  /** The run's status when the request came in. */
  readonly status: ServerRunStatus;
  readonly encoder: UiMessageStreamEncoder;
  /** Replay and follow (the server's `followRun`, else the manager's own). */
  readonly follow: FollowRun;
  readonly metrics: ServerMetrics;
  readonly heartbeatMs: number;
  /** Events waiting for a slow client; beyond it the connection is closed (the client resumes from the log). */
  readonly maxQueued: number;
  /** Called once when the stream has ended, however it ended. */
  readonly onClose?: () => void;
}

/**
 * The UI message stream of one run: its logged events from the first, then
 * live ones, each once (`follow` joins replay and live as the run's own SSE
 * stream does), through `encoder`, as SSE (`data: {chunk}`, then
 * `data: [DONE]`), with the header `x-vercel-ai-ui-message-stream: v1` and
 * `: ping` comments while nothing happens. Ends when the encoder has
 * finished the message, or when the client goes away (the run goes on).
 *
 * @example
 * return streamUiMessages(c, { runId, status: run.status, encoder, follow, metrics, heartbeatMs: 15_000, maxQueued: 2048 });
 */
export function streamUiMessages(c: Context, options: StreamUiMessagesOptions): Response {
  for (const [name, value] of Object.entries(uiMessageStreamHeaders)) c.header(name, value);
  return streamSSE(c, async (stream) => {
    try {
      await send(stream, options);
    } finally {
      options.onClose?.();
    }
  });
}

async function send(stream: SSEStreamingApi, options: StreamUiMessagesOptions): Promise<void> {
  const { runId, encoder, metrics, heartbeatMs, maxQueued } = options;
  const write = (chunks: readonly UiMessageChunk[]) =>
    chunks.length === 0 ? Promise.resolve() : stream.write(chunks.map(encodeUiMessageChunk).join(''));
  let lost = false;
  const { closed } = await pumpRunEvents(stream, {
    runId,
    afterSeq: 0,
    follow: options.follow,
    metrics,
    heartbeatMs,
    maxQueued,
    open: async ({ active, queued }) => {
      const settled = options.status !== 'running' && options.status !== 'awaiting_approval';
      lost = settled && !active && !queued.some(isTerminalEvent);
      await write(encoder.start());
      return true;
    },
    deliver: async (batch) => {
      const delivered: ExternalEvent[] = [];
      for (const event of batch) {
        if (encoder.done) break;
        const encoded = encoder.encode(event);
        await write(encoded instanceof Promise ? await encoded : encoded);
        delivered.push(event);
      }
      return delivered;
    },
    finished: () => encoder.done,
    idle: async () => {
      if (!lost) return false;
      await write(await encoder.finishWithout(options.status as StopReason));
      return true;
    },
  });
  if (encoder.done && !closed) await stream.write(uiMessageStreamDone);
}
