import type { Context } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import type { Awaitable } from '../core/awaitable.js';
import type { ExternalEvent } from '../events/external-event.js';
import type { ServerRunStatus } from '../store/server-run.js';
import { pumpRunEvents } from './pump-run-events.js';
import { encodeRunEventFrame, runEventFrame } from './run-event-frame.js';
import { isTerminalEvent, type RunManager } from './run-manager.js';
import type { ServerMetrics } from './server-metrics.js';

/**
 * Replays a run's logged events after `afterSeq` to `push`, then follows
 * it live, each event once; resolves once the replay is done, with the
 * unfollow and whether more of the run's events are to come from this
 * process (`active`: it still executes here, or events it published here
 * are not written yet), which a run's status read before cannot tell.
 *
 * @example
 * const follow: FollowRun = ({ runId, afterSeq, push }) => ({ unfollow: feed.follow(…), active: false });
 */
export type FollowRun = (options: {
  readonly runId: string;
  readonly afterSeq: number;
  readonly push: (event: ExternalEvent) => void;
}) => Awaitable<{ readonly unfollow: () => void; readonly active: boolean }>;

/**
 * The manager's own replay and follow, joined in one synchronous step: the
 * manager publishes each event to the log and to followers in one step too,
 * so nothing falls between replay and live.
 *
 * @example
 * streamRunEvents(c, { …, follow: followOnManager(manager) });
 */
export function followOnManager(manager: RunManager): FollowRun {
  return ({ runId, afterSeq, push }) => {
    const unfollow = manager.follow(runId, push);
    for (const event of manager.replay(runId, afterSeq)) push(event);
    // A run that has just ended here is settled in its status while its last events, run:end included, wait
    // for the log's next write: the stream follows them rather than ending with the replay.
    return { unfollow, active: manager.isActive(runId) || manager.hasUnloggedEvents(runId) };
  };
}

export interface StreamRunEventsOptions {
  readonly runId: string;
  /** The run's status when the request came in. */
  readonly status: ServerRunStatus;
  /** The client's `Last-Event-ID`: everything up to it is not sent again. */
  readonly afterSeq: number;
  readonly manager: RunManager;
  readonly metrics: ServerMetrics;
  /** A `: ping` comment this often, so clients and proxies know the stream is alive. */
  readonly heartbeatMs: number;
  /** Events waiting for a slow client; beyond it the connection is closed and the client replays from the log. */
  readonly maxQueued: number;
  /** Replay and follow; default `followOnManager(manager)`. */
  readonly follow?: FollowRun;
  /** Called once when the stream has ended, however it ended (e.g. to release a per-principal slot). */
  readonly onClose?: () => void;
}

/**
 * The SSE response of one run: first what the log holds after `afterSeq`,
 * then live events, each once, in seq order, `id:` = seq (`follow`: by
 * default the manager's replay and follow in one synchronous step). The connection ends after the first terminal event it
 * sends — `run:end` (also with `awaiting_approval`) or `run:error` — or at
 * once when the run has finished and the client has seen everything. A
 * client reconnecting to a run that waits for approval is held open (with
 * heartbeats) until the resumed run's events come.
 *
 * @example
 * app.get('/v1/runs/:id/events', (c) => streamRunEvents(c, { runId, status, afterSeq, manager, log, metrics, heartbeatMs: 15_000, maxQueued: 2048 }));
 */
export function streamRunEvents(c: Context, options: StreamRunEventsOptions): Response {
  const { runId, afterSeq, manager, metrics, heartbeatMs, maxQueued } = options;
  c.header('X-Accel-Buffering', 'no');
  return streamSSE(c, async (stream) => {
    try {
      await sendEvents(stream);
    } finally {
      options.onClose?.();
    }
  });

  async function sendEvents(stream: SSEStreamingApi): Promise<void> {
    let ended = false;
    /** The run has settled with no terminal event in the table: the replay is all there is. */
    let endAfterReplay = false;
    await pumpRunEvents(stream, {
      runId,
      afterSeq,
      follow: options.follow ?? followOnManager(manager),
      metrics,
      heartbeatMs,
      maxQueued,
      open: async ({ active, queued }) => {
        const settled = options.status !== 'running' && options.status !== 'awaiting_approval';
        endAfterReplay = settled && !active && !queued.some(isTerminalEvent);
        await stream.write(`retry: 1000\n: ping interval=${heartbeatMs}\n\n`);
        // What the table holds is sent whatever this process knows of the run; only an empty replay ends here.
        return !endAfterReplay || queued.length > 0;
      },
      deliver: async (batch) => {
        const terminal = batch.findIndex(isTerminalEvent);
        if (terminal >= 0) {
          batch.length = terminal + 1;
          ended = true;
        }
        let text = '';
        for (const event of batch) text += runEventFrame(event);
        await stream.write(text);
        if (endAfterReplay) ended = true;
        return batch;
      },
      finished: () => ended,
    });
  }
}

/**
 * arbiter's own SSE encoding of a run's events: one `id: SEQ` and one
 * `data: JSON` per event, in one string for one write. Encodes every time
 * (the benchmarks measure the encoding itself); a stream writes through
 * `runEventFrame`, which encodes a live event once for all its followers.
 *
 * @example
 * encodeRunEvents([{ type: 'run:start', runId, seq: 1, at }]); // 'id: 1\ndata: {"type":"run:start",…}\n\n'
 */
export function encodeRunEvents(events: readonly ExternalEvent[]): string {
  let text = '';
  for (const event of events) text += encodeRunEventFrame(event);
  return text;
}

/**
 * The seq a client has seen, from `Last-Event-ID` (or `?lastEventId=` for
 * clients that cannot set headers): a non-negative integer, 0 when absent,
 * `undefined` when malformed.
 *
 * @example
 * parseLastEventId('12'); // 12
 */
export function parseLastEventId(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return 0;
  if (!/^\d{1,15}$/.test(value.trim())) return undefined;
  return Number(value.trim());
}
