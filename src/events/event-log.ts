import type { Awaitable } from '../core/awaitable.js';
import type { ExternalEvent } from './external-event.js';

export interface ReadEventsOptions {
  readonly runId: string;
  /** Only events after this seq; 0 (the default) reads from the start. */
  readonly afterSeq?: number;
  /** At most this many events. Default 1000. */
  readonly limit?: number;
  /** Only events of this type (e.g. a resumed run's `approval:required`). Default: every type. */
  readonly type?: ExternalEvent['type'];
}

/**
 * The external events of runs, kept so a screen that reconnects (SSE
 * `Last-Event-ID`) or a subscriber that got a `gap` can replay what it
 * missed. Holds projected events only: nothing sensitive is ever written.
 *
 * Every method may answer synchronously (SQLite) or with a promise
 * (PostgreSQL): a caller that does not know its backend awaits the answer.
 *
 * @example
 * const log = new SqliteEventLog({ database: store.database });
 * for (const event of await log.readEvents({ runId, afterSeq: lastSeenSeq })) send(event);
 */
export interface EventLog {
  /** Writes events; an event already written (same run and seq) is left as it was. */
  append(events: readonly ExternalEvent[]): Awaitable<void>;
  /** A run's events in seq order, after `afterSeq`. */
  readEvents(options: ReadEventsOptions): Awaitable<readonly ExternalEvent[]>;
  /** The highest seq written for the run, 0 when none. */
  lastSeq(runId: string): Awaitable<number>;
  /**
   * Removes the events of finished runs whose last event was written before
   * `before` (epoch ms), whole runs only, never a run still active (a
   * session's active run, running or awaiting approval; on SQLite also a
   * server run marked so); returns how many events went.
   */
  prune(options: { readonly before: number }): Awaitable<number>;
}

/**
 * An event log that answers in the same synchronous step (SQLite's): what
 * the server needs today to replay a run's logged events and start
 * following it without a gap or a duplicate between the two.
 *
 * @example
 * const log: SynchronousEventLog = new SqliteEventLog({ database: store.database });
 * const missed = log.readEvents({ runId, afterSeq });
 */
export interface SynchronousEventLog extends EventLog {
  append(events: readonly ExternalEvent[]): void;
  readEvents(options: ReadEventsOptions): readonly ExternalEvent[];
  lastSeq(runId: string): number;
  prune(options: { readonly before: number }): number;
}
