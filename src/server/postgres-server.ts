import { randomUUID } from 'node:crypto';
import type { ExternalEvent } from '../events/external-event.js';
import { openPostgresBackend } from '../store/postgres/open-postgres-backend.js';
import { PostgresDatabase } from '../store/postgres/postgres-database.js';
import { PostgresRunEventFeed } from '../store/postgres/postgres-run-event-feed.js';
import { isStoreUnavailable } from '../util/store-unavailable.js';
import { type AssembledServer, assembleServer, type CreateServerOptions, type ServerStorage } from './create-server.js';
import { PostgresPrincipalLimits } from './postgres-principal-limits.js';
import { PostgresRunRecords } from './postgres-run-records.js';
import { RunLeaseKeeper } from './run-lease-keeper.js';
import { isTerminalEvent } from './run-manager.js';
import { jsonLineLogger } from './server-log.js';
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
  const { connectionString, schema, nodeId = randomUUID(), leaseMs = 10_000 } = options;
  const onError = options.onError ?? ((error: unknown) => console.error('arbiter server:', error));
  const logger = options.logger ?? jsonLineLogger();
  // A node's claims in flight lapse as its runs' leases do: whoever adopts a dead node's run finds its keys judged.
  const backend = await openPostgresBackend({
    connectionString,
    ...(schema === undefined ? {} : { schema }),
    claimLeaseMs: leaseMs,
  });
  const database = PostgresDatabase.open({ pool: backend.pool, ...(schema === undefined ? {} : { schema }) });
  let feed: PostgresRunEventFeed;
  try {
    feed = await PostgresRunEventFeed.open({ database, log: backend.events, onError });
  } catch (error) {
    await backend.close();
    throw error;
  }
  const records = new PostgresRunRecords({ runs: backend.serverRuns, nodeId, leaseMs, onError });
  const limits = new PostgresPrincipalLimits({ database, nodeId, ...options.principalLimits });
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
      try {
        await feed.publish(events, {
          inTransaction: async (query) => {
            for (const ending of endings) await records.finishIn(query, ending);
          },
        });
      } catch (error) {
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
        const unfollow = await feed.followAfterBacklog({ runId, afterSeq, onEvents: (events) => events.forEach(push) });
        return { unfollow, active: manager.isActive(runId) };
      },
    resumeRun: () => (runId) => keeper.requeue(runId),
    // A deploy: each run stopped at a committed step; its lease is let go and every node woken to claim it.
    handOver: (runIds) => keeper.handOver(runIds),
    resumeInterrupted: false,
    metrics: () => database.transactionCounts.prometheus(),
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
