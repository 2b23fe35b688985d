import { afterEach, describe, expect, it } from 'vitest';
import type { ExternalEvent } from '../../events/external-event.js';
import { ClusterWorkCounts } from './cluster-work-counts.js';
import { openPostgresBackend } from './open-postgres-backend.js';
import { PostgresDatabase } from './postgres-database.js';
import { PostgresEventLog } from './postgres-event-log.js';
import { PostgresRunEventFeed } from './postgres-run-event-feed.js';
import { setUpPostgresCluster } from './test-support/postgres-cluster.js';

const cluster = setUpPostgresCluster();

/** A follower's `onEvents` that notes the seqs it is handed. */
function seqsInto(seen: number[]): (events: readonly ExternalEvent[]) => void {
  return (events) => seen.push(...events.map((event) => event.seq));
}

function textEvent(runId: string, seq: number): ExternalEvent {
  return { type: 'text', runId, seq, at: seq, text: `part ${seq}` } as unknown as ExternalEvent;
}

describe.skipIf(cluster.skip)('PostgresRunEventFeed', () => {
  const toClose: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of toClose.splice(0).reverse()) await close();
  });

  /** One node: its own pool on the shared schema, and its feed; `reads` counts its event log's reads. */
  async function node(
    schema: string,
    reads = { count: 0 },
    readDelayMs = 0,
    counts = new ClusterWorkCounts(),
  ): Promise<PostgresRunEventFeed> {
    await (await openPostgresBackend({ connectionString: cluster.connectionString, schema })).close();
    const database = PostgresDatabase.open({ connectionString: cluster.connectionString, schema });
    const log = new PostgresEventLog({ database });
    const readEvents = log.readEvents.bind(log);
    log.readEvents = async (options) => {
      reads.count += 1;
      if (readDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, readDelayMs));
      return readEvents(options);
    };
    const feed = await PostgresRunEventFeed.open({ database, log, pollMs: 60_000, counts });
    toClose.push(
      () => database.close(),
      () => feed.close(),
    );
    return feed;
  }

  it("hands a node's own batches to its followers as they commit, without reading them back", async () => {
    const schema = cluster.freshSchema();
    const reads = { count: 0 };
    const a = await node(schema, reads);
    await a.publish([1, 2].map((seq) => textEvent('run-1', seq)));
    const seen: number[] = [];
    const stop = await a.followAfterBacklog({ runId: 'run-1', afterSeq: 0, onEvents: seqsInto(seen) });
    toClose.push(async () => stop());
    // The backlog, before it resolves, in one read (a short page is the end).
    expect(seen).toEqual([1, 2]);
    expect(reads.count).toBe(1);
    for (let seq = 3; seq <= 30; seq += 1) await a.publish([textEvent('run-1', seq)]);
    // Its own notifications arrive too, and wake no read.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen).toEqual(Array.from({ length: 30 }, (_, index) => index + 1));
    expect(reads.count).toBe(1);
  });

  it('gives the backlog of a run this node writes from what it kept, with no read, until its terminal event', async () => {
    const schema = cluster.freshSchema();
    const reads = { count: 0 };
    const a = await node(schema, reads);
    await a.publish([1, 2].map((seq) => textEvent('run-1', seq)));
    await a.publish([textEvent('run-1', 3)]);
    const seen: number[] = [];
    const stop = await a.followAfterBacklog({ runId: 'run-1', afterSeq: 1, onEvents: seqsInto(seen), runsHere: true });
    toClose.push(async () => stop());
    expect(seen).toEqual([2, 3]);
    expect(reads.count).toBe(0);
    // Later batches as they commit, the terminal one included; then what was kept is let go.
    await a.publish([
      textEvent('run-1', 4),
      { type: 'run:end', runId: 'run-1', seq: 5, at: 5, stopReason: 'completed' } as unknown as ExternalEvent,
    ]);
    expect(seen).toEqual([2, 3, 4, 5]);
    const late: number[] = [];
    const stopLate = await a.followAfterBacklog({
      runId: 'run-1',
      afterSeq: 3,
      onEvents: seqsInto(late),
      runsHere: true,
    });
    toClose.push(async () => stopLate());
    expect(late).toEqual([4, 5]);
    expect(reads.count).toBe(1);
    // A run this node did not write from seq 1 on is read from the table, as is any run not executing here.
    await a.publish([textEvent('run-2', 7)]);
    const other: number[] = [];
    const stopOther = await a.followAfterBacklog({
      runId: 'run-2',
      afterSeq: 0,
      onEvents: seqsInto(other),
      runsHere: true,
    });
    toClose.push(async () => stopOther());
    expect(reads.count).toBe(2);
  });

  it('follows a run this node has just begun from its first event, with no read, before anything is written', async () => {
    const schema = cluster.freshSchema();
    const reads = { count: 0 };
    const a = await node(schema, reads);
    a.expectRun('run-1');
    const seen: number[] = [];
    const stop = await a.followAfterBacklog({ runId: 'run-1', afterSeq: 0, onEvents: seqsInto(seen), runsHere: true });
    toClose.push(async () => stop());
    await a.publish([1, 2].map((seq) => textEvent('run-1', seq)));
    expect(seen).toEqual([1, 2]);
    expect(reads.count).toBe(0);
  });

  it('hands on the batches the node commits while a read is under way, without reading again', async () => {
    const schema = cluster.freshSchema();
    const reads = { count: 0 };
    const a = await node(schema, reads, 150);
    await a.publish([1, 2].map((seq) => textEvent('run-1', seq)));
    const seen: number[] = [];
    const following = a.followAfterBacklog({ runId: 'run-1', afterSeq: 0, onEvents: seqsInto(seen) });
    // The backlog's read is under way (held 150 ms) when the next batches commit.
    await new Promise((resolve) => setTimeout(resolve, 30));
    await a.publish([3, 4].map((seq) => textEvent('run-1', seq)));
    await a.publish([5].map((seq) => textEvent('run-1', seq)));
    const stop = await following;
    toClose.push(async () => stop());
    await until(() => seen.length >= 5);
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(reads.count).toBe(1);
  });

  it("reads what lay beyond a hole once the node's own batch fills it, though its notification was ignored", async () => {
    const schema = cluster.freshSchema();
    const a = await node(schema);
    const seen: number[] = [];
    const stop = a.follow({ runId: 'run-1', afterSeq: 0, onEvents: seqsInto(seen) });
    toClose.push(async () => stop());
    // Seqs 3-4 commit before 1-2: a hole, then the batch that fills it.
    await a.publish([3, 4].map((seq) => textEvent('run-1', seq)));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen).toEqual([]);
    await a.publish([1, 2].map((seq) => textEvent('run-1', seq)));
    await until(() => seen.length >= 4);
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it("still reads another node's batches while it ignores its own notifications", async () => {
    const schema = cluster.freshSchema();
    const [a, b] = [await node(schema), await node(schema)];
    const seen: number[] = [];
    const stop = a.follow({ runId: 'run-1', afterSeq: 0, onEvents: seqsInto(seen) });
    toClose.push(async () => stop());
    await a.publish([textEvent('run-1', 1)]);
    await b.publish([textEvent('run-1', 2)]);
    await until(() => seen.length >= 2);
    expect(seen).toEqual([1, 2]);
  });

  async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
    const started = Date.now();
    while (!condition()) {
      if (Date.now() - started > timeoutMs) throw new Error('timed out');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  // A hostile id (quotes, a statement, non-ASCII) reaches the channel only as its md5, which node B's side
  // (JavaScript) must work out as node A's `pg_notify` (SQL, over the id's UTF-8 bytes) does.
  it.each(['run-1', `run'"; UNLISTEN *; DROP TABLE run_events; -- 退款 ✓`])(
    'hands a follower on node B every event node A writes, once, in seq order, woken by NOTIFY (run %j)',
    async (runId) => {
      const schema = cluster.freshSchema();
      const [a, b] = [await node(schema), await node(schema)];
      const seen: number[] = [];
      const stop = b.follow({ runId, afterSeq: 0, onEvents: seqsInto(seen) });
      toClose.push(async () => stop());
      for (let seq = 1; seq <= 60; seq += 3) {
        await a.publish([textEvent(runId, seq), textEvent(runId, seq + 1), textEvent(runId, seq + 2)]);
      }
      // The poll is a minute away: only notifications can have woken B this soon.
      await until(() => seen.length >= 60);
      expect(seen).toEqual(Array.from({ length: 60 }, (_, index) => index + 1));
    },
  );

  it('replays after Last-Event-ID from the table and joins the live events with no gap and no duplicate', async () => {
    const schema = cluster.freshSchema();
    const [a, b] = [await node(schema), await node(schema)];
    await a.publish([1, 2, 3, 4, 5].map((seq) => textEvent('run-1', seq)));
    const writing = (async () => {
      for (let seq = 6; seq <= 100; seq += 1) await a.publish([textEvent('run-1', seq)]);
    })();
    // A client that saw 3 reconnects while A is still writing.
    const seen: number[] = [];
    const stop = b.follow({ runId: 'run-1', afterSeq: 3, onEvents: seqsInto(seen) });
    toClose.push(async () => stop());
    await writing;
    await until(() => seen.at(-1) === 100);
    expect(seen).toEqual(Array.from({ length: 97 }, (_, index) => index + 4));
  });

  it('holds back events beyond a hole until the batch before them is committed', async () => {
    const schema = cluster.freshSchema();
    const [a, b] = [await node(schema), await node(schema)];
    const seen: number[] = [];
    const stop = b.follow({ runId: 'run-1', afterSeq: 0, onEvents: seqsInto(seen) });
    toClose.push(async () => stop());
    await a.publish([textEvent('run-1', 1), textEvent('run-1', 4)]);
    await until(() => seen.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen).toEqual([1]);
    await a.publish([textEvent('run-1', 2), textEvent('run-1', 3)]);
    await until(() => seen.length === 4);
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it("wakes only the nodes following a run: a node that follows none gets no notification of another's batches", async () => {
    const schema = cluster.freshSchema();
    const counts = new ClusterWorkCounts();
    const a = await node(schema);
    const b = await node(schema, { count: 0 }, 0, counts);
    const seen: number[] = [];
    // B follows run-2 only; A writes run-1 (nobody on B follows it), then run-2.
    const stop = b.follow({ runId: 'run-2', afterSeq: 0, onEvents: seqsInto(seen) });
    toClose.push(async () => stop());
    await until(() => counts.entries().some(([work]) => work === 'event read woken'));
    for (let seq = 1; seq <= 10; seq += 1) await a.publish([textEvent('run-1', seq)]);
    await a.publish([textEvent('run-2', 1)]);
    await until(() => seen.length === 1);
    const notifications = Object.fromEntries(counts.entries().filter(([work]) => work.startsWith('notification')));
    expect(notifications).toEqual({ 'notification run_events followed': 1 });
  });

  it('serves a follower from what this node writes until its run has left the node, then listens and reads', async () => {
    const schema = cluster.freshSchema();
    const reads = { count: 0 };
    const [a, b] = [await node(schema, reads), await node(schema)];
    a.expectRun('run-1');
    await a.publish([1, 2].map((seq) => textEvent('run-1', seq)));
    let runsHere = true;
    const seen: number[] = [];
    const stop = await a.followAfterBacklog({
      runId: 'run-1',
      afterSeq: 0,
      onEvents: seqsInto(seen),
      runsHere: true,
      stillRunsHere: () => runsHere,
    });
    toClose.push(async () => stop());
    expect(seen).toEqual([1, 2]);
    // The run goes on on node B (resumed there): A, no longer executing it, listens within two checks and reads.
    runsHere = false;
    await b.publish([textEvent('run-1', 3)]);
    await until(() => seen.length === 3);
    await b.publish([textEvent('run-1', 4)]);
    await until(() => seen.length === 4);
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(reads.count).toBeGreaterThan(0);
  });
});
