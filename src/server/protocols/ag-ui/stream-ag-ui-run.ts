import type { BaseEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import type { Context } from 'hono';
import { stream as streamBody } from 'hono/streaming';
import { pumpRunEvents } from '../../pump-run-events.js';
import type { RunManager } from '../../run-manager.js';
import { isTerminalEvent } from '../../run-manager.js';
import type { ServerMetrics } from '../../server-metrics.js';
import { type FollowRun, followOnManager } from '../../stream-run-events.js';
import type { AgUiEventTranslator } from './ag-ui-event-translator.js';

export interface StreamAgUiRunOptions {
  /** The arbiter run to follow, and the seq after which this AG-UI run's part of it begins. */
  readonly arbiterRunId: string;
  readonly afterSeq: number;
  readonly translator: AgUiEventTranslator;
  /** Nothing to follow: the AG-UI run is only its opening and these events (e.g. an interrupt still pending). */
  readonly only?: readonly BaseEvent[];
  readonly manager: RunManager;
  readonly follow?: FollowRun;
  readonly metrics: ServerMetrics;
  readonly heartbeatMs: number;
  /** Events waiting for a slow client; beyond it the connection is closed (the client may replay by `runId`). */
  readonly maxQueued: number;
  /** Called once when the stream has ended, however it ended. */
  readonly onClose?: () => void;
}

/**
 * The SSE response of one AG-UI run: the translator's opening, then the
 * arbiter run's events after `afterSeq` (replayed from the log, then live,
 * each once, as `streamRunEvents` follows them), translated and written with
 * `@ag-ui/encoder`'s `EventEncoder`, until the translator has written the
 * run's end (`RUN_FINISHED` or `RUN_ERROR`). Heartbeats are SSE comments.
 *
 * @example
 * return streamAgUiRun(c, { arbiterRunId, afterSeq: 0, translator, manager, metrics, heartbeatMs: 15_000, maxQueued: 2048 });
 */
export function streamAgUiRun(c: Context, options: StreamAgUiRunOptions): Response {
  const { arbiterRunId, afterSeq, translator, manager, metrics, heartbeatMs, maxQueued } = options;
  const encoder = new EventEncoder();
  const encode = (events: readonly BaseEvent[]) => events.map((event) => encoder.encodeSSE(event)).join('');
  c.header('Content-Type', encoder.getContentType());
  c.header('Cache-Control', 'no-cache');
  c.header('X-Accel-Buffering', 'no');
  return streamBody(c, async (stream) => {
    try {
      if (options.only !== undefined) {
        metrics.streamOpened();
        try {
          await stream.write(encode([...translator.start(), ...options.only]));
        } finally {
          metrics.streamClosed();
        }
        return;
      }
      await pumpRunEvents(stream, {
        runId: arbiterRunId,
        afterSeq,
        follow: options.follow ?? followOnManager(manager),
        metrics,
        heartbeatMs,
        maxQueued,
        open: async () => {
          await stream.write(encode(translator.start()));
          return true;
        },
        deliver: async (batch) => {
          const out: BaseEvent[] = [];
          for (const event of batch) {
            out.push(...(await translator.translate(event)));
            if (isTerminalEvent(event)) break;
          }
          await stream.write(encode(out));
          return batch;
        },
        finished: () => translator.finished,
      });
    } finally {
      options.onClose?.();
    }
  });
}
