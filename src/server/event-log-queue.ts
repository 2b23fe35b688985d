import type { EventLog } from '../events/event-log.js';
import type { ExternalEvent } from '../events/external-event.js';
import { isStoreBusy } from '../util/retry-while-busy.js';
import { isStoreUnavailable } from '../util/store-unavailable.js';

/** Pauses between tries of an event-log write that found the database locked. */
const firstRetryMs = 20;
const longestRetryMs = 1000;
/** Pauses between tries of a write to a database that could not be reached (restarting), growing to 2 s. */
const firstUnavailableRetryMs = 100;
const longestUnavailableRetryMs = 2000;

/** When the queue writes next. */
type FlushState =
  | { readonly kind: 'idle' }
  /** A write is due on the next turn of the event loop. */
  | { readonly kind: 'scheduled' }
  /** The database was locked: the write is tried again after `pauseMs`. */
  | { readonly kind: 'waiting'; readonly pauseMs: number }
  /** An asynchronous log (PostgreSQL's) is writing a batch; the next waits for it, so batches land in order. */
  | { readonly kind: 'writing' };

/**
 * The published events not yet in the event log, written once per turn of
 * the event loop in one transaction rather than once per event, and only
 * then delivered (`deliver`), so a client never holds an event the log
 * lacks. While another connection holds the database locked the events
 * stay queued (`lastSeq` still counts them) and the write is tried again
 * after a growing pause (20 ms doubling to 1 s), never blocking the
 * process. An asynchronous log's write that failed because the database
 * could not be reached (a PostgreSQL restart) goes back to the head of the
 * queue and is tried again (100 ms doubling to 2 s) with what was pushed
 * meanwhile, in order: the run goes on, its events wait, and none is
 * delivered before it is written or dropped with a hole in the log. Once
 * `stopping()` the queue no longer retries, it reports.
 *
 * @example
 * const queue = new EventLogQueue({ log, deliver: (events) => followers.deliver(events), onError, stopping: () => signal.aborted });
 * queue.push(event);
 */
export class EventLogQueue {
  readonly #log: Pick<EventLog, 'append'>;
  readonly #deliver: (events: readonly ExternalEvent[]) => void;
  readonly #onError: (error: unknown) => void;
  readonly #stopping: () => boolean;
  /** Oldest first. */
  #unlogged: ExternalEvent[] = [];
  /** The batch an asynchronous log is writing now. */
  #writing: readonly ExternalEvent[] = [];
  #state: FlushState = { kind: 'idle' };
  /** The pause after the last failed write; 0 once a write succeeded. */
  #pauseMs = 0;
  readonly #gatherMs: number;
  /** The timer of a write `gatherMs` away (`scheduled`), brought forward by a terminal event. */
  #gathering: ReturnType<typeof setTimeout> | undefined;

  constructor({
    log,
    deliver,
    onError,
    stopping,
    gatherMs = 0,
  }: {
    /** SQLite's answers at once; one that answers with a promise gets one batch at a time. */
    log: Pick<EventLog, 'append'>;
    /** Gets the events once they are written (or once the log refused them for good). */
    deliver: (events: readonly ExternalEvent[]) => void;
    /** Told of a write that failed other than by a locked database; the events are delivered anyway. */
    onError: (error: unknown) => void;
    /** True once the server shuts down: a locked database is then reported, not waited out. */
    stopping: () => boolean;
    /**
     * How long events wait for more before a write, unless one of them ends
     * a run (`run:end`, `run:error`: written when the event loop turns).
     * Default 0: every turn. A database that costs a transaction per write
     * (PostgreSQL) writes the bursts of a run, and of runs side by side, as
     * one; live events reach followers that much later.
     */
    gatherMs?: number;
  }) {
    this.#log = log;
    this.#deliver = deliver;
    this.#onError = onError;
    this.#stopping = stopping;
    this.#gatherMs = gatherMs;
  }

  /** Queues a published event; the write is scheduled unless one already is. */
  push(event: ExternalEvent): void {
    this.#unlogged.push(event);
    const ends = event.type === 'run:end' || event.type === 'run:error';
    if (this.#state.kind === 'idle') this.#schedule(ends);
    else if (ends && this.#gathering !== undefined) {
      // A run's end waits for nothing: the write gathering events is brought forward.
      clearTimeout(this.#gathering);
      this.#gathering = undefined;
      setImmediate(() => this.#flush());
    }
  }

  /** The next write: when the event loop turns, or `gatherMs` from now unless `now`. */
  #schedule(now: boolean): void {
    this.#state = { kind: 'scheduled' };
    if (now || this.#gatherMs === 0) {
      setImmediate(() => this.#flush());
      return;
    }
    this.#gathering = setTimeout(() => {
      this.#gathering = undefined;
      this.#flush();
    }, this.#gatherMs);
  }

  /** The seq of the run's last queued event, if one is queued. */
  lastSeq(runId: string): number | undefined {
    return (
      this.#unlogged.findLast((event) => event.runId === runId)?.seq ??
      this.#writing.findLast((event) => event.runId === runId)?.seq
    );
  }

  /** The run's events still queued or being written, oldest first. */
  queued(runId: string): ExternalEvent[] {
    return [...this.#writing, ...this.#unlogged].filter((event) => event.runId === runId);
  }

  /**
   * Resolves once no write is under way or waiting to be tried again, or
   * after `waitMs`: at shutdown, what is still queued is then written by the
   * caller, after what was already being written.
   */
  async drained(waitMs: number): Promise<void> {
    const deadline = performance.now() + waitMs;
    while (this.#state.kind === 'writing' || this.#state.kind === 'waiting') {
      if (performance.now() >= deadline) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Takes every queued event out, for a caller that writes them itself (shutdown). */
  takeAll(): ExternalEvent[] {
    const events = this.#unlogged;
    this.#unlogged = [];
    return events;
  }

  #flush(): void {
    this.#state = { kind: 'idle' };
    const events = this.#unlogged;
    if (events.length === 0) return;
    try {
      const written = this.#log.append(events);
      if (written instanceof Promise) {
        this.#unlogged = [];
        this.#writing = events;
        this.#state = { kind: 'writing' };
        written.then(
          () => this.#written(events),
          (error: unknown) => {
            if (isStoreUnavailable(error) && !this.#stopping()) {
              this.#retryLater(events, error);
              return;
            }
            this.#onError(error);
            this.#written(events);
          },
        );
        return;
      }
    } catch (error) {
      if (isStoreBusy(error) && !this.#stopping()) {
        this.#pauseMs = Math.min(longestRetryMs, Math.max(firstRetryMs, this.#pauseMs * 2));
        this.#state = { kind: 'waiting', pauseMs: this.#pauseMs };
        setTimeout(() => this.#flush(), this.#pauseMs).unref();
        return;
      }
      // The log cannot take them: followers still get them rather than a stream that stalls.
      this.#onError(error);
    }
    this.#pauseMs = 0;
    this.#unlogged = [];
    this.#deliver(events);
  }

  /** The database could not be reached: the batch goes back to the head of the queue and is tried again later. */
  #retryLater(events: readonly ExternalEvent[], error: unknown): void {
    if (this.#pauseMs === 0) this.#onError(error);
    this.#writing = [];
    this.#unlogged = [...events, ...this.#unlogged];
    this.#pauseMs = Math.min(longestUnavailableRetryMs, Math.max(firstUnavailableRetryMs, this.#pauseMs * 2));
    this.#state = { kind: 'waiting', pauseMs: this.#pauseMs };
    setTimeout(() => this.#flush(), this.#pauseMs).unref();
  }

  /** An asynchronous write ended: its events go to followers, and what was pushed meanwhile is written next. */
  #written(events: readonly ExternalEvent[]): void {
    this.#writing = [];
    this.#pauseMs = 0;
    this.#state = { kind: 'idle' };
    this.#deliver(events);
    if (this.#unlogged.length > 0) {
      this.#schedule(this.#unlogged.some((event) => event.type === 'run:end' || event.type === 'run:error'));
    }
  }
}
