import type { ExternalEvent } from '../events/external-event.js';
import type { ServerMetrics } from './server-metrics.js';
import type { FollowRun } from './stream-run-events.js';

/** The part of hono's stream a run's event pump writes to. */
export interface PumpStream {
  write(text: string): Promise<unknown>;
  onAbort(listener: () => void): void;
}

export interface PumpRunEventsOptions {
  readonly runId: string;
  /** Everything up to this seq is not delivered again. */
  readonly afterSeq: number;
  /** Replay and follow. */
  readonly follow: FollowRun;
  readonly metrics: ServerMetrics;
  /** A `: ping` comment this often while nothing else is written. */
  readonly heartbeatMs: number;
  /** Events waiting for a slow client; beyond it the stream ends (the client resumes from the log). */
  readonly maxQueued: number;
  /**
   * Once the replay is queued: writes the stream's opening; `false` ends the
   * stream there. `active`: more of the run's events are to come from this
   * process (`FollowRun`); `queued`: the replayed events waiting.
   */
  readonly open: (followed: {
    readonly active: boolean;
    readonly queued: readonly ExternalEvent[];
  }) => Promise<boolean>;
  /** Writes all waiting events (a fresh array); returns those delivered, for the delivery metric. */
  readonly deliver: (batch: ExternalEvent[]) => Promise<readonly ExternalEvent[]>;
  /** Whether the protocol has written its end; the pump stops then. */
  readonly finished: () => boolean;
  /** Nothing waits: `true` ends the stream (checked before a heartbeat). */
  readonly idle?: () => Promise<boolean>;
}

/**
 * The loop the SSE streams of a run share: follows the run (replay, then
 * live, each event once, in seq order), hands the waiting events to
 * `deliver` in one batch, writes `: ping` heartbeats, and ends when the
 * protocol has `finished`, when the client goes away, or when more than
 * `maxQueued` events wait beyond the replay. Counts the stream in
 * `metrics` and always unfollows. Resolves with whether the client went away.
 *
 * @example
 * const { closed } = await pumpRunEvents(stream, { runId, afterSeq, follow, metrics, heartbeatMs, maxQueued, open, deliver, finished });
 */
export async function pumpRunEvents(stream: PumpStream, options: PumpRunEventsOptions): Promise<{ closed: boolean }> {
  const { runId, afterSeq, metrics, heartbeatMs, maxQueued } = options;
  const queue: ExternalEvent[] = [];
  let lastQueued = afterSeq;
  let overflow = false;
  let bound = maxQueued;
  let pingDue = false;
  let closed = false;
  let wake: (() => void) | undefined;
  const nudge = () => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  stream.onAbort(() => {
    closed = true;
    nudge();
  });
  const push = (event: ExternalEvent) => {
    if (event.seq <= lastQueued) return;
    lastQueued = event.seq;
    queue.push(event);
    if (queue.length > bound) overflow = true;
    nudge();
  };

  const { unfollow, active } = await options.follow({ runId, afterSeq, push });
  bound = queue.length + maxQueued;
  metrics.streamOpened();
  const heartbeat = setInterval(() => {
    pingDue = true;
    nudge();
  }, heartbeatMs);
  try {
    if (!(await options.open({ active, queued: queue }))) return { closed };
    while (!closed && !overflow && !options.finished()) {
      if (queue.length > 0) {
        // Everything waiting goes out at once: fewer syscalls when a client is behind or a burst arrives.
        const delivered = await options.deliver(queue.splice(0, queue.length));
        const now = Date.now();
        for (const event of delivered) metrics.observeDelivery(Math.max(0, now - event.at) / 1000);
        continue;
      }
      if (options.idle !== undefined && (await options.idle())) break;
      if (pingDue) {
        pingDue = false;
        await stream.write(': ping\n\n');
        continue;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
    return { closed };
  } finally {
    clearInterval(heartbeat);
    unfollow();
    metrics.streamClosed();
  }
}
