import type { EventLog } from '../events/event-log.js';
import type { PostgresBackend } from '../store/postgres/open-postgres-backend.js';
import { PostgresDatabase } from '../store/postgres/postgres-database.js';
import { PostgresRunEventFeed } from '../store/postgres/postgres-run-event-feed.js';

/** The event log an engine's worker writes to, and how to let go of its connection. */
export interface EngineEventLog extends EventLog {
  close(): Promise<void>;
}

/**
 * The event log for an engine's workers on arbiter's PostgreSQL store: each
 * batch of a run's events is written with the `NOTIFY` that wakes every
 * `arbiter serve` node following the run, as a node's own runs are, so a
 * client streaming the run from any node (SSE, `useChat`, AG-UI, with
 * `Last-Event-ID`) sees each event as it is written, not at the nodes'
 * 30 s poll. Holds one connection of the pool for `LISTEN` until closed.
 *
 * @example
 * const backend = await openPostgresBackend({ connectionString });
 * const log = await openEngineEventLog({ backend });
 * const agent = registerDbosAgent({ agent: { model, tools, gate, log, sessions: backend.sessions, … } });
 */
export async function openEngineEventLog({
  backend,
  onError,
}: {
  backend: Pick<PostgresBackend, 'pool' | 'schema' | 'events'>;
  /** Told of a lost `LISTEN` connection (it is opened again). Default: ignored. */
  onError?: (error: unknown) => void;
}): Promise<EngineEventLog> {
  const database = PostgresDatabase.open({
    pool: backend.pool,
    ...(backend.schema === undefined ? {} : { schema: backend.schema }),
  });
  const feed = await PostgresRunEventFeed.open({
    database,
    log: backend.events,
    ...(onError === undefined ? {} : { onError }),
  });
  return {
    append: (events) => feed.publish(events),
    readEvents: (options) => backend.events.readEvents(options),
    lastSeq: (runId) => backend.events.lastSeq(runId),
    prune: (options) => backend.events.prune(options),
    close: () => feed.close(),
  };
}
