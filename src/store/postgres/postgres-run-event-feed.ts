import { createHash } from 'node:crypto';
import type { ExternalEvent } from '../../events/external-event.js';
import { ClusterWorkCounts } from './cluster-work-counts.js';
import { namedStatement } from './named-statement.js';
import type { PostgresDatabase, PostgresQuery, TransactionConnection } from './postgres-database.js';
import type { PostgresEventLog } from './postgres-event-log.js';
import { PostgresListener } from './postgres-listener.js';

/**
 * Each run's notifications go to a channel of its own, this prefix and the
 * md5 of its id (`runEventsChannel`), which only the nodes following the
 * run from the table listen on; a notification's payload is the run id.
 */
const channelPrefix = 'arbiter_run_events_';
/**
 * Reads every follower's run this often even without a notification. Only a
 * fallback: notifications are not lost while the `LISTEN` connection holds,
 * and after it was lost every follower reads again as soon as it listens.
 */
const defaultPollMs = 30_000;
/** Wakes the nodes following the runs ($2) of a batch, when it commits, each run on its channel ($1 the prefix). */
const notify = namedStatement('SELECT pg_notify($1 || md5(run_id), run_id) FROM unnest($2::text[]) AS run_id');
/**
 * How often the followers served from this node's own writes are checked:
 * one whose run has not executed here at two checks in a row (another node
 * resumed it, or its lease was lost) listens for the run and reads the table.
 */
const localCheckMs = 1000;
/**
 * The events of runs this node writes, kept while each runs (up to this
 * many events a run, this many runs): a follower of such a run gets its
 * backlog from here, without a read.
 */
const recentEventsPerRun = 2000;
const recentRuns = 10_000;
/** How many events one read of a follower takes. */
const pageSize = 1000;
/** A read that failed (the database restarting) is tried again after this pause, not at the next poll. */
const readRetryMs = 500;

/** What a follower asks for: a run's events after `afterSeq`, handed to `onEvents` in seq order. */
export interface FollowRequest {
  readonly runId: string;
  readonly afterSeq: number;
  readonly onEvents: (events: readonly ExternalEvent[]) => void;
}

/** One connection following one run from `afterSeq` on. */
interface Follower {
  readonly runId: string;
  /** The highest seq handed to `onEvents`: the next read starts after it. */
  cursor: number;
  readonly onEvents: (events: readonly ExternalEvent[]) => void;
  /** A read is under way; another wake-up sets `again` rather than reading twice at once. */
  reading: boolean;
  again: boolean;
  /** The last read stopped at a hole: a batch of this node's filling it must be followed by a read. */
  holed: boolean;
  /** Its run's channel is listened on for it (counted in `#listening`, let go at unfollow). */
  listening: boolean;
  /**
   * Served from this node's writes, not listening: whether the run still
   * executes here (checked every `localCheckMs`); `strikes` counts the
   * checks in a row that found it elsewhere.
   */
  local: { readonly runsHere: () => boolean; strikes: number } | undefined;
  /** This node's batches committed while a read was under way: handed on after it, not read again. */
  pending: ExternalEvent[];
  stopped: boolean;
}

/**
 * A run's events across nodes: each node writes them to `run_events` with
 * their seq (`publish`), and in the same transaction `NOTIFY`s the run id
 * on the run's own channel (`runEventsChannel`); a node following the run
 * (`follow`) listens on that channel before it first reads (so only the
 * nodes following a run from the table are woken by its batches, never
 * every node), and reads the table after the last seq
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
  readonly #counts: ClusterWorkCounts;
  readonly #followers = new Map<string, Set<Follower>>();
  /** How many of this node's followers listen on each run's channel. */
  readonly #listening = new Map<string, number>();
  /** The followers served from this node's writes (`local`), checked every `localCheckMs` while there are any. */
  readonly #local = new Set<Follower>();
  #localCheck: ReturnType<typeof setInterval> | undefined;
  /**
   * Every event this node committed of each run it is writing, from seq 1
   * on without a hole, in seq order: dropped at the run's terminal event,
   * at a hole, or when too long; a run whose first batch this node did not
   * write has none.
   */
  readonly #recent = new Map<string, ExternalEvent[]>();
  /** The server processes this node published through: their notifications were delivered here already. */
  readonly #ownSenders = new Set<number>();
  #forgetSender: ((client: unknown) => void) | undefined;
  #listener: PostgresListener | undefined;
  #poll: ReturnType<typeof setInterval> | undefined;

  private constructor(options: {
    database: PostgresDatabase;
    log: PostgresEventLog;
    onError: (error: unknown) => void;
    counts: ClusterWorkCounts;
  }) {
    this.#database = options.database;
    this.#log = options.log;
    this.#onError = options.onError;
    this.#counts = options.counts;
  }

  /** Opens the feed: its `LISTEN` connection, and the poll that backs it up. */
  static async open({
    database,
    log,
    pollMs = defaultPollMs,
    onError = () => {},
    counts = new ClusterWorkCounts(),
  }: {
    database: PostgresDatabase;
    log: PostgresEventLog;
    /** Followed runs are read this often without a notification too. Default 30 s. */
    pollMs?: number;
    /** Told of a failed read or a lost `LISTEN` connection (both are retried). */
    onError?: (error: unknown) => void;
    /** Where the notifications and reads are counted (`GET /metrics`). */
    counts?: ClusterWorkCounts;
  }): Promise<PostgresRunEventFeed> {
    const feed = new PostgresRunEventFeed({ database, log, onError, counts });
    // A server process id is another connection's once ours is gone: only live connections count as our own.
    feed.#forgetSender = (client: unknown) => {
      const processId = (client as { processID: number | null }).processID;
      if (processId !== null) feed.#ownSenders.delete(processId);
    };
    database.pool.on('remove', feed.#forgetSender);
    feed.#listener = await PostgresListener.open({
      database,
      onNotification: (runId, sender) => {
        // This node's own batches reach its followers as they commit (`publish`), without a read.
        if (feed.#ownSenders.has(sender)) counts.add('notification run_events own');
        else if (runId === undefined || !feed.#followers.has(runId)) counts.add('notification run_events not followed');
        else {
          counts.add('notification run_events followed');
          feed.wake(runId);
        }
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
   * Writes the events and wakes every node following their runs, in one
   * transaction (one statement, when nothing else is written with them): a
   * follower woken by the notification finds the events in the table. This node's own followers get the batch
   * straight after the commit, and ignore the notification it sent: a run
   * followed on the node that runs it costs no read per batch.
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
    // Before the NOTIFY can arrive: the listener must know it for this node's own.
    const ownSender = ({ processId }: TransactionConnection) => {
      if (processId !== 0) this.#ownSenders.add(processId);
    };
    // Events alone: one statement, which commits by itself. With more writes: a transaction.
    const committed =
      inTransaction === undefined
        ? this.#log.appendNotifying({ events, channelPrefix, runIds, onConnection: ownSender })
        : this.#database.transaction(async (query, connection) => {
            ownSender(connection);
            await this.#log.appendWithin(query, events);
            await inTransaction(query);
            await query(notify, [channelPrefix, runIds]);
          });
    try {
      await committed;
    } catch (error) {
      // It may have committed all the same (a connection lost during COMMIT): the followers read the table.
      for (const runId of runIds) this.wake(runId);
      throw error;
    }
    for (const runId of runIds) {
      const batch = events.filter((event) => event.runId === runId);
      this.#remember(runId, batch);
      const followers = this.#followers.get(runId);
      if (followers === undefined) continue;
      for (const follower of followers) this.#deliver(follower, batch);
    }
  }

  /**
   * A run this node has just begun (not resumed): it writes its events from
   * seq 1, and a follower arriving before the first is written (they wait
   * for more, `gatherMs`) gets its backlog from what this node keeps.
   */
  expectRun(runId: string): void {
    if (this.#recent.has(runId)) return;
    if (this.#recent.size >= recentRuns) {
      const oldest = this.#recent.keys().next().value;
      if (oldest !== undefined) this.#recent.delete(oldest);
    }
    this.#recent.set(runId, []);
  }

  /** Adds a committed batch to the run's recent events (`#recent`), or forgets them. */
  #remember(runId: string, batch: readonly ExternalEvent[]): void {
    const sorted = [...batch].sort((left, right) => left.seq - right.seq);
    let recent = this.#recent.get(runId);
    if (recent === undefined) {
      if (sorted[0]?.seq !== 1) return;
      if (this.#recent.size >= recentRuns) {
        const oldest = this.#recent.keys().next().value;
        if (oldest !== undefined) this.#recent.delete(oldest);
      }
      recent = [];
      this.#recent.set(runId, recent);
    }
    for (const event of sorted) {
      const last = recent.at(-1)?.seq ?? 0;
      if (event.seq <= last) continue;
      if (event.seq !== last + 1 || recent.length >= recentEventsPerRun || isTerminal(event)) {
        this.#recent.delete(runId);
        return;
      }
      recent.push(event);
    }
  }

  /**
   * Hands a follower a batch this node just committed (`#handOn`), the table
   * read when the batch leaves or fills a hole; during a read the batch
   * waits for its end (`#handOnPending`).
   */
  #deliver(follower: Follower, batch: readonly ExternalEvent[]): void {
    if (follower.reading) {
      follower.pending.push(...batch);
      return;
    }
    if (this.#handOn(follower, batch)) void this.#read(follower);
  }

  /**
   * Hands on what of `batch` continues the follower's cursor, in seq order;
   * true when the table must be read: the batch leaves a hole, or fills the
   * one the last read stopped at (what lay beyond it is in the table, and
   * its notification was this node's own).
   */
  #handOn(follower: Follower, batch: readonly ExternalEvent[]): boolean {
    if (follower.stopped) return false;
    const fresh = batch.filter((event) => event.seq > follower.cursor).sort((left, right) => left.seq - right.seq);
    if (fresh.length === 0) return false;
    const events = contiguous(fresh, follower.cursor);
    if (events.length > 0) {
      follower.cursor = events.at(-1)?.seq ?? follower.cursor;
      follower.onEvents(events);
    }
    return events.length < fresh.length || (events.length > 0 && follower.holed);
  }

  /**
   * Hands `onEvents` the run's events after `afterSeq`: what the table holds
   * now, then each new batch as it is written, on any node. Returns the
   * unfollow.
   */
  follow({ runId, afterSeq, onEvents }: FollowRequest): () => void {
    const { follower, unfollow } = this.#add(runId, afterSeq, onEvents);
    // Listening before the read: a batch committed after the read's snapshot is notified.
    void this.#listenFor(follower).then(() => this.#read(follower));
    return unfollow;
  }

  /**
   * `follow`, with what the table holds now handed on before this resolves
   * (a read that fails rejects, following nothing): a caller can tell a
   * finished run's whole replay from what comes later. A batch written or
   * notified during that read is read after it; in the common case the
   * backlog costs one read, and none for a run this node is writing (its
   * events since seq 1 are kept until its terminal event).
   */
  async followAfterBacklog({
    runId,
    afterSeq,
    onEvents,
    runsHere = false,
    stillRunsHere,
  }: FollowRequest & {
    /**
     * The run executes on this node now (it holds its lease): no other node
     * writes its events, so what this node kept of them is the backlog.
     */
    runsHere?: boolean;
    /**
     * Whether the run still executes here. Given with `runsHere`, a follower
     * served from what this node writes does not listen for the run's
     * notifications until the run has left this node (checked every second,
     * switched after two checks): a stream on the node that executes its run
     * costs no notification and no `LISTEN`. Without it such a follower
     * listens too.
     */
    stillRunsHere?: () => boolean;
  }): Promise<() => void> {
    const { follower, unfollow } = this.#add(runId, afterSeq, onEvents);
    const recent = runsHere ? this.#recent.get(runId) : undefined;
    if (recent !== undefined) {
      // Written here from seq 1 on, each batch added as it committed and before any follower got it: the
      // backlog is what this node holds, and what it commits next is handed on as it commits.
      const backlog = recent.filter((event) => event.seq > afterSeq);
      if (backlog.length > 0) {
        follower.cursor = backlog.at(-1)?.seq ?? afterSeq;
        onEvents(backlog);
      }
      if (stillRunsHere === undefined) void this.#listenFor(follower);
      else this.#serveLocally(follower, stillRunsHere);
      return unfollow;
    }
    follower.reading = true;
    try {
      // Listening before the read: a batch committed after the read's snapshot is notified.
      await this.#listenFor(follower);
      await this.#readPages(follower, 'event read backlog');
      if (this.#handOnPending(follower)) follower.again = true;
    } catch (error) {
      unfollow();
      throw error;
    } finally {
      follower.reading = false;
    }
    if (follower.again) void this.#read(follower);
    return unfollow;
  }

  #add(
    runId: string,
    afterSeq: number,
    onEvents: (events: readonly ExternalEvent[]) => void,
  ): { follower: Follower; unfollow: () => void } {
    const follower: Follower = {
      runId,
      cursor: afterSeq,
      onEvents,
      reading: false,
      again: false,
      holed: false,
      pending: [],
      stopped: false,
      listening: false,
      local: undefined,
    };
    let followers = this.#followers.get(runId);
    if (followers === undefined) {
      followers = new Set();
      this.#followers.set(runId, followers);
    }
    followers.add(follower);
    const unfollow = () => {
      if (follower.stopped) return;
      follower.stopped = true;
      const set = this.#followers.get(runId);
      set?.delete(follower);
      if (set?.size === 0) this.#followers.delete(runId);
      this.#local.delete(follower);
      if (follower.listening) this.#unlistenFor(runId);
    };
    return { follower, unfollow };
  }

  /** Listens on the follower's run's channel (once per run, however many follow it); resolves once listening. */
  async #listenFor(follower: Follower): Promise<void> {
    if (follower.listening || follower.stopped) return;
    follower.listening = true;
    const count = this.#listening.get(follower.runId) ?? 0;
    this.#listening.set(follower.runId, count + 1);
    // A second follower of the run waits for the same LISTEN: the listener's statements run in order.
    await this.#listener?.listen(runEventsChannel(follower.runId));
  }

  #unlistenFor(runId: string): void {
    const count = (this.#listening.get(runId) ?? 1) - 1;
    if (count > 0) {
      this.#listening.set(runId, count);
      return;
    }
    this.#listening.delete(runId);
    this.#listener?.unlisten(runEventsChannel(runId));
  }

  /** A follower served from this node's writes; once its run has left this node, it listens and reads. */
  #serveLocally(follower: Follower, runsHere: () => boolean): void {
    follower.local = { runsHere, strikes: 0 };
    this.#local.add(follower);
    if (this.#localCheck !== undefined) return;
    this.#localCheck = setInterval(() => this.#checkLocal(), localCheckMs);
    this.#localCheck.unref();
  }

  #checkLocal(): void {
    for (const follower of this.#local) {
      const local = follower.local;
      if (local === undefined) continue;
      local.strikes = local.runsHere() ? 0 : local.strikes + 1;
      if (local.strikes < 2) continue;
      // Another node may write the run now (resumed after an approval, or after this node lost its lease).
      follower.local = undefined;
      this.#local.delete(follower);
      void this.#listenFor(follower).then(() => this.#read(follower));
    }
    if (this.#local.size > 0) return;
    clearInterval(this.#localCheck);
    this.#localCheck = undefined;
  }

  /** Wakes this node's followers of a run now (its own writes need no round trip through the database). */
  wake(runId: string): void {
    for (const follower of this.#followers.get(runId) ?? []) void this.#read(follower);
  }

  /** Stops listening and polling; followers get nothing more. */
  async close(): Promise<void> {
    clearInterval(this.#poll);
    clearInterval(this.#localCheck);
    this.#localCheck = undefined;
    this.#local.clear();
    this.#listening.clear();
    this.#recent.clear();
    if (this.#forgetSender !== undefined) this.#database.pool.off('remove', this.#forgetSender);
    this.#followers.clear();
    await this.#listener?.close();
    this.#listener = undefined;
  }

  async #read(follower: Follower): Promise<void> {
    if (follower.stopped) return;
    if (follower.reading) {
      follower.again = true;
      return;
    }
    follower.reading = true;
    try {
      do {
        follower.again = false;
        await this.#readPages(follower, 'event read woken');
        if (this.#handOnPending(follower)) follower.again = true;
      } while (follower.again && !follower.stopped);
    } catch (error) {
      this.#onError(error);
      // Read again from the same cursor: whatever wakes it first, this or a notification.
      if (!follower.stopped) setTimeout(() => void this.#read(follower), readRetryMs).unref();
    } finally {
      follower.reading = false;
    }
  }

  /** Hands on this node's batches that committed during a read (`#handOn`); true when the table must be read again. */
  #handOnPending(follower: Follower): boolean {
    const batch = follower.pending;
    follower.pending = [];
    return this.#handOn(follower, batch);
  }

  /** Hands the follower what the table holds after its cursor, a page at a time, up to a hole or a short page. */
  async #readPages(follower: Follower, work: 'event read backlog' | 'event read woken'): Promise<void> {
    for (;;) {
      this.#counts.add(work);
      const read = await this.#log.readEvents({ runId: follower.runId, afterSeq: follower.cursor, limit: pageSize });
      const events = contiguous(read, follower.cursor);
      follower.holed = events.length < read.length;
      if (follower.stopped || events.length === 0) return;
      follower.cursor = events.at(-1)?.seq ?? follower.cursor;
      follower.onEvents(events);
      // A hole (a batch still being committed) is read again when its notification comes; a short page is the end.
      if (events.length < read.length || read.length < pageSize) return;
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

/** `run:end` and `run:error`: after them a run writes nothing until it is resumed. */
function isTerminal(event: ExternalEvent): boolean {
  return event.type === 'run:end' || event.type === 'run:error';
}

/**
 * The channel a run's notifications go to: `arbiter_run_events_` and the
 * md5 of its id in hex (what `pg_notify($prefix || md5(run_id), …)` names in
 * SQL), a plain identifier of 51 characters whatever the id holds.
 *
 * @example
 * runEventsChannel('run-1'); // 'arbiter_run_events_' + 32 hex digits
 */
export function runEventsChannel(runId: string): string {
  return `${channelPrefix}${createHash('md5').update(runId).digest('hex')}`;
}
