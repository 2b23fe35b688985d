import type { ExternalEvent } from '../../events/external-event.js';
import { appendEvents } from '../events/event-log-statements.js';
import { appendAll, SqlEventLog } from '../events/sql-event-log.js';
import { PostgresPort } from '../sql/postgres-port.js';
import { namedStatement } from './named-statement.js';
import type { PostgresDatabase, PostgresQuery, TransactionConnection } from './postgres-database.js';

/** A batch of events and the notifications that wake its runs' followers: one statement ($6 channel, $7 run ids). */
const appendNotifying = namedStatement(
  `WITH written AS (${appendEvents.postgres}) SELECT pg_notify($6, run_id) FROM unnest($7::text[]) AS run_id`,
);

/**
 * The event log in PostgreSQL (table `run_events`, keyed by run and seq):
 * `SqlEventLog` answered with promises, a batch in one statement.
 *
 * @example
 * const { events } = await openPostgresBackend({ connectionString });
 * for (const event of await events.readEvents({ runId, afterSeq })) send(event);
 */
export class PostgresEventLog extends SqlEventLog<'async'> {
  readonly #port: PostgresPort;
  readonly #database: PostgresDatabase;

  constructor({ database }: { database: PostgresDatabase }) {
    const port = new PostgresPort(database);
    super({ port });
    this.#port = port;
    this.#database = database;
  }

  /**
   * Writes `events` and sends `pg_notify(channel, runId)` for each of
   * `runIds`, in one statement (one round trip, one transaction): the
   * notifications go out when the events commit.
   *
   * @example
   * await log.appendNotifying({ events, channel: 'arbiter_run_events', runIds: ['r1'] });
   */
  async appendNotifying({
    events,
    channel,
    runIds,
    onConnection,
  }: {
    events: readonly ExternalEvent[];
    channel: string;
    runIds: readonly string[];
    /** Told the connection's server process before the statement is sent. */
    onConnection?: (connection: TransactionConnection) => void;
  }): Promise<void> {
    await this.#database.query(
      appendNotifying,
      [
        events.map((event) => event.runId),
        events.map((event) => event.seq),
        events.map((event) => event.type),
        events.map((event) => event.at),
        events.map((event) => JSON.stringify(event)),
        channel,
        runIds,
      ],
      onConnection === undefined ? {} : { onConnection },
    );
  }

  /** `append` on the connection of a transaction its caller holds (the feed's, which notifies followers in it). */
  async appendWithin(query: PostgresQuery, events: readonly ExternalEvent[]): Promise<void> {
    await this.#port.within(query).run(appendAll(events));
  }
}
