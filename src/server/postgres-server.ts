import { randomUUID } from 'node:crypto';
import type { ExternalEvent } from '../events/external-event.js';
import { ClusterWorkCounts } from '../store/postgres/cluster-work-counts.js';
import { openPostgresBackend } from '../store/postgres/open-postgres-backend.js';
import { PostgresDatabase } from '../store/postgres/postgres-database.js';
import { PostgresRunEventFeed } from '../store/postgres/postgres-run-event-feed.js';
import { isStoreUnavailable } from '../util/store-unavailable.js';
import { type AssembledServer, assembleServer, type CreateServerOptions, type ServerStorage } from './create-server.js';
import { PostgresPrincipalLimits } from './postgres-principal-limits.js';
import { PostgresRunRecords } from './postgres-run-records.js';
import { RunLeaseKeeper } from './run-lease-keeper.js';
import { isTerminalEvent } from './run-manager.js';
import { RunSessionEnds } from './run-session-ends.js';
import { jsonLineLogger } from './server-log.js';
import { type ServerEngine, startInEngine } from './start-in-engine.js';
import { type RunningServer, type StartServerOptions, startServerWith } from './start-server.js';

/** Where and how a node joins the others on one PostgreSQL database. */
export interface PostgresServerOptions {
  /** `postgres://user:password@host:port/database` (what `ARBITER_STORE_URL` holds). */
  readonly connectionString: string;
  /** The schema arbiter's tables live in. Default: the connection's `search_path` (usually `public`). */
  readonly schema?: string;
  /** This node's name in leases and logs. Default: a random UUID per process. */
  readonly nodeId?: string;
  /**
   * How long a run's lease lasts without renewal: after a node dies, its runs
   * wait this long before another node resumes them. Default 10 s.
   */
  readonly leaseMs?: number;
  /**
   * Runs execute in this durable engine, not on the nodes: a message posted
   * to a session starts its run there (`startInEngine`), a decided approval
   * wakes it there, and the nodes stream its events from the event table
   * the engine's workers write. The nodes keep the API, the desk, the
   * approval checks and the streams. Default: the nodes execute the runs.
   */
  readonly engine?: ServerEngine;
  /**
   * How long a run's events wait for more before they are written (one
   * transaction each write; a run's end is written at once). Live events
   * reach followers up to this much later. Default 10 ms; 0: every turn
   * of the event loop.
   */
  readonly eventGatherMs?: number;
}

/**
 * The server of one node among many on one PostgreSQL database, no sticky
 * sessions: sessions, journal, approvals, idempotency claims, audit and
 * events in the database; runs as work with a lease (`RunLeaseKeeper`);
 * SSE connections following the event table, woken by `LISTEN/NOTIFY`
 * (`PostgresRunEventFeed`), so a run executing on another node streams
 * here with `Last-Event-ID` replay; approvals decided here requeue the run
 * for whichever node claims it; per-principal limits counted in the
 * database (`PostgresPrincipalLimits`).
 *
 * @example
 * const server = await createPostgresServer({ connectionString: process.env.ARBITER_STORE_URL, tools, model });
 */
export async function createPostgresServer(
  options: CreateServerOptions & PostgresServerOptions,
): Promise<AssembledServer> {
  const { connectionString, schema, nodeId = randomUUID(), leaseMs = 10_000, engine } = options;
  const onError = options.onError ?? ((error: unknown) => console.error('arbiter server:', error));
  const logger = options.logger ?? jsonLineLogger();
  // A node's claims in flight lapse as its runs' leases do: whoever adopts a dead node's run finds its keys judged.
  const backend = await openPostgresBackend({
    connectionString,
    ...(schema === undefined ? {} : { schema }),
    claimLeaseMs: leaseMs,
  });
  const database = PostgresDatabase.open({ pool: backend.pool, ...(schema === undefined ? {} : { schema }) });
  // What this node does for the cluster (notifications, reads, lease keeping), on `GET /metrics`.
  const counts = new ClusterWorkCounts();
  let feed: PostgresRunEventFeed;
  try {
    feed = await PostgresRunEventFeed.open({ database, log: backend.events, onError, counts });
  } catch (error) {
    await backend.close();
    throw error;
  }
  const records = new PostgresRunRecords({
    runs: backend.serverRuns,
    nodeId,
    leaseMs,
    onError,
    // Its events are written here from seq 1: a stream that follows it here needs no read of the table.
    onNewRun: (runId) => feed.expectRun(runId),
  });
  const limits = new PostgresPrincipalLimits({ database, nodeId, counts, ...options.principalLimits });
  const sessionEnds = new RunSessionEnds();
  const eventGatherMs = options.eventGatherMs ?? 10;
  // Every batch of a run's events is written with the NOTIFY that wakes the nodes following it; a run's
  // terminal event with its status, so a node that sees the end reads the same status.
  const log = {
    append: async (events: readonly ExternalEvent[]) => {
      const ended = events.filter(isTerminalEvent).map((event) => event.runId);
      if (ended.length === 0) return feed.publish(events);
      // The run's earlier record writes first; its end then commits with its terminal event.
      await Promise.all(ended.map((runId) => records.written(runId)));
      const endings = ended.flatMap((runId) => {
        const ending = records.takeEnding(runId);
        return ending === undefined ? [] : [{ runId, ...ending }];
      });
      // The sessions' ends their runs offered (`sessionEnds`): committed here, not in a transaction each.
      const sessionEndings = ended.flatMap((runId) => sessionEnds.take(runId) ?? []);
      const settleSessionEnds = (committed: boolean) =>
        sessionEnds.settled(
          sessionEndings.map((request) => request.runId),
          committed,
        );
      try {
        await feed.publish(events, {
          inTransaction: async (query) => {
            for (const ending of endings) await records.finishIn(query, ending);
            for (const request of sessionEndings) await backend.sessions.endRunWithin(query, request);
          },
        });
        settleSessionEnds(true);
      } catch (error) {
        // Not written (or not known to be): each run's session store writes its end itself.
        settleSessionEnds(false);
        // The database could not be reached: the event queue writes the batch again, with its endings.
        if (isStoreUnavailable(error)) {
          for (const ending of endings) records.restoreEnding(ending);
          throw error;
        }
        // The events are lost to the table; the statuses still are written.
        for (const ending of endings) records.setStatus(ending.runId, ending.status, ending.failure);
        await records.flush();
        throw error;
      }
    },
    readEvents: backend.events.readEvents.bind(backend.events),
    lastSeq: backend.events.lastSeq.bind(backend.events),
    prune: backend.events.prune.bind(backend.events),
  };
  const keeper = new RunLeaseKeeper({
    database,
    runs: backend.serverRuns,
    records,
    sessions: backend.sessions,
    log,
    nodeId,
    leaseMs,
    onRenew: () => limits.renewStreams(),
    onError,
    logger,
    counts,
  });
  let closed: Promise<void> | undefined;
  const storage: ServerStorage = {
    sessions: backend.sessions,
    runs: records,
    log,
    approvals: backend.approvals,
    idempotency: options.idempotency ?? backend.idempotency,
    audit: options.audit ?? backend.audit,
    limits,
    tenantOf: (runId) => records.tenantOf(runId),
    memory: backend.memory,
    followRun:
      (manager) =>
      async ({ runId, afterSeq, push }) => {
        // The table up to now, then whatever any node writes after it: one cursor, no gap, no duplicate.
        // A run executing here: its backlog is what this node wrote, kept since its run:start (no read).
        const active = manager.isActive(runId);
        const unfollow = await feed.followAfterBacklog({
          runId,
          afterSeq,
          onEvents: (events) => events.forEach(push),
          runsHere: active,
          // Served from what this node writes: the run's notifications are listened for once it has left.
          stillRunsHere: () => manager.isActive(runId),
        });
        return { unfollow, active };
      },
    offerSessionEnd: (request) => sessionEnds.offer(request),
    // A write is a transaction: a run's bursts, and runs side by side, are written together.
    eventGatherMs,
    // In an engine, a decided approval wakes the run where it waits; else any node may claim it again.
    resumeRun: () => (runId) => (engine === undefined ? keeper.requeue(runId) : engine.runs.resumeRun(runId)),
    ...(engine === undefined
      ? {}
      : { startRun: startInEngine({ engine, sessions: backend.sessions, serverRuns: backend.serverRuns }) }),
    // A deploy: each run stopped at a committed step; its lease is let go and every node woken to claim it.
    handOver: (runIds) => keeper.handOver(runIds),
    resumeInterrupted: false,
    metrics: () => [...database.transactionCounts.prometheus(), ...counts.prometheus()],
    healthCheck: async () => {
      await database.query('SELECT 1');
    },
    // A node shutting down claims nothing more, and renews what it runs until those runs have stopped.
    stopping: () => keeper.stopClaiming(),
    start: (manager) => {
      keeper.start(manager).catch(onError);
    },
    close: () => {
      closed ??= (async () => {
        await keeper.stop();
        await records.flush();
        await feed.close();
        await backend.close();
      })();
      return closed;
    },
  };
  try {
    return assembleServer(options, storage);
  } catch (error) {
    await storage.close();
    throw error;
  }
}

/**
 * `startServer` for one node on PostgreSQL (`createPostgresServer`): the
 * default domain, the loopback rule and listening are `startServer`'s.
 *
 * @example
 * const running = await startPostgresServer({ port: 8081, connectionString: 'postgres://localhost/arbiter' });
 */
export function startPostgresServer(
  options: StartServerOptions & PostgresServerOptions,
): Promise<RunningServer<AssembledServer>> {
  return startServerWith(options, (serverOptions) => createPostgresServer({ ...options, ...serverOptions }));
}
