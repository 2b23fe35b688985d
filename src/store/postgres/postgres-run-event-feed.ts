import type { ExternalEvent } from '../../events/external-event.js';
import type { PostgresDatabase, PostgresQuery } from './postgres-database.js';
import type { PostgresEventLog } from './postgres-event-log.js';
import { PostgresListener } from './postgres-listener.js';

/** The channel every node listens on; a notification's payload is one run id, nothing more. */
const channel = 'arbiter_run_events';
/**
 * Reads every follower's run this often even without a notification. Only a
 * fallback: notifications are not lost while the `LISTEN` connection holds,
 * and after it was lost every follower reads again as soon as it listens.
 */
const defaultPollMs = 30_000;
/** A read that failed (the database restarting) is tried again after this pause, not at the next poll. */
const readRetryMs = 500;

/** One connection following one run from `afterSeq` on. */
interface Follower {
  readonly runId: string;
  /** The highest seq handed to `onEvents`: the next read starts after it. */
  cursor: number;
  readonly onEvents: (events: readonly ExternalEvent[]) => void;
  /** A read is under way; another wake-up sets `again` rather than reading twice at once. */
  reading: boolean;
  again: boolean;
  stopped: boolean;
}

/**
 * A run's events across nodes: each node writes them to `run_events` with
 * their seq (`publish`), and in the same transaction `NOTIFY`s the run id;
 * a node following the run (`follow`) reads the table after the last seq
 * it handed on whenever a notification for the run arrives, again 0.5 s
 * after a read failed, once the `LISTEN` connection is back after it was
 * lost, and every `pollMs` (30 s) as a last resort. The table is the truth: a notification
 * only wakes a reader, is never replayed, and carries nothing but the run
 * id (PostgreSQL caps payloads at 8000 bytes). Each follower reads from its
 * own cursor, one read at a time, and hands on only events that continue
 * its cursor without a hole (a later batch committed before an earlier one
 * waits for it), so it sees every event once, in seq order, whichever node
 * wrote it; `afterSeq` (a client's `Last-Event-ID`)
 * replays from the table with no gap and no duplicate.
 *
 * One connection of the pool is held for `LISTEN` while the feed is open.
 *
 * @example
 * const feed = await PostgresRunEventFeed.open({ database, log });
 * const stop = feed.follow({ runId, afterSeq: lastEventId, onEvents: (events) => send(events) });
 */
export class PostgresRunEventFeed {
  readonly #database: PostgresDatabase;
  readonly #log: PostgresEventLog;
  readonly #onError: (error: unknown) => void;
  readonly #followers = new Map<string, Set<Follower>>();
  #listener: PostgresListener | undefined;
  #poll: ReturnType<typeof setInterval> | undefined;

  private constructor(options: {
    database: PostgresDatabase;
    log: PostgresEventLog;
    onError: (error: unknown) => void;
  }) {
    this.#database = options.database;
    this.#log = options.log;
    this.#onError = options.onError;
  }

  /** Opens the feed: its `LISTEN` connection, and the poll that backs it up. */
  static async open({
    database,
    log,
    pollMs = defaultPollMs,
    onError = () => {},
  }: {
    database: PostgresDatabase;
    log: PostgresEventLog;
    /** Followed runs are read this often without a notification too. Default 30 s. */
    pollMs?: number;
    /** Told of a failed read or a lost `LISTEN` connection (both are retried). */
    onError?: (error: unknown) => void;
  }): Promise<PostgresRunEventFeed> {
    const feed = new PostgresRunEventFeed({ database, log, onError });
    feed.#listener = await PostgresListener.open({
      database,
      channel,
      onNotification: (runId) => {
        if (runId !== undefined) feed.wake(runId);
      },
      // Whatever was written while nobody listened is read now.
      onReconnected: () => feed.#wakeAll(),
      onError,
    });
    feed.#poll = setInterval(() => feed.#wakeAll(), pollMs);
    feed.#poll.unref();
    return feed;
  }

  /**
   * Writes the events (one statement) and wakes every node following their
   * runs, in one transaction: a follower woken by the notification finds
   * the events in the table.
   */
  async publish(
    events: readonly ExternalEvent[],
    {
      inTransaction,
    }: {
      /** More writes to commit with the events (a run's status beside its terminal event). */
      inTransaction?: (query: PostgresQuery) => Promise<void>;
    } = {},
  ): Promise<void> {
    if (events.length === 0) return;
    const runIds = [...new Set(events.map((event) => event.runId))];
    await this.#database.transaction(async (query) => {
      await query(
        `INSERT INTO run_events (run_id, seq, type, at, event)
         SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::text[])
         ON CONFLICT (run_id, seq) DO NOTHING`,
        [
          events.map((event) => event.runId),
          events.map((event) => event.seq),
          events.map((event) => event.type),
          events.map((event) => event.at),
          events.map((event) => JSON.stringify(event)),
        ],
      );
      await inTransaction?.(query);
      await query('SELECT pg_notify($1, run_id) FROM unnest($2::text[]) AS run_id', [channel, runIds]);
    });
  }

  /**
   * Hands `onEvents` the run's events after `afterSeq`: what the table holds
   * now, then each new batch as it is written, on any node. Returns the
   * unfollow.
   */
  follow({
    runId,
    afterSeq,
    onEvents,
  }: {
    runId: string;
    afterSeq: number;
    onEvents: (events: readonly ExternalEvent[]) => void;
  }): () => void {
    const follower: Follower = { runId, cursor: afterSeq, onEvents, reading: false, again: false, stopped: false };
    let followers = this.#followers.get(runId);
    if (followers === undefined) {
      followers = new Set();
      this.#followers.set(runId, followers);
    }
    followers.add(follower);
    void this.#read(follower);
    return () => {
      follower.stopped = true;
      const set = this.#followers.get(runId);
      set?.delete(follower);
      if (set?.size === 0) this.#followers.delete(runId);
    };
  }

  /** Wakes this node's followers of a run now (its own writes need no round trip through the database). */
  wake(runId: string): void {
    for (const follower of this.#followers.get(runId) ?? []) void this.#read(follower);
  }

  /** Stops listening and polling; followers get nothing more. */
  async close(): Promise<void> {
    clearInterval(this.#poll);
    this.#followers.clear();
    await this.#listener?.close();
    this.#listener = undefined;
  }

  async #read(follower: Follower): Promise<void> {
    if (follower.reading) {
      follower.again = true;
      return;
    }
    follower.reading = true;
    try {
      do {
        follower.again = false;
        for (;;) {
          const read = await this.#log.readEvents({ runId: follower.runId, afterSeq: follower.cursor });
          const events = contiguous(read, follower.cursor);
          if (follower.stopped || events.length === 0) break;
          follower.cursor = events.at(-1)?.seq ?? follower.cursor;
          follower.onEvents(events);
          if (events.length < read.length) break;
        }
      } while (follower.again && !follower.stopped);
    } catch (error) {
      this.#onError(error);
      // Read again from the same cursor: whatever wakes it first, this or a notification.
      if (!follower.stopped) setTimeout(() => void this.#read(follower), readRetryMs).unref();
    } finally {
      follower.reading = false;
    }
  }

  #wakeAll(): void {
    for (const runId of this.#followers.keys()) this.wake(runId);
  }
}

/**
 * The events that follow `cursor` without a hole. A run's seqs have none,
 * so a hole is a batch still being committed on another connection: what
 * lies beyond it is read again, in order, once the hole is filled.
 */
function contiguous(events: readonly ExternalEvent[], cursor: number): readonly ExternalEvent[] {
  let end = 0;
  while (end < events.length && events[end]?.seq === cursor + end + 1) end += 1;
  return end === events.length ? events : events.slice(0, end);
}
