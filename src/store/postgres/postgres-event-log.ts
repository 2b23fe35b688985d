import type { ExternalEvent } from '../../events/external-event.js';
import { appendEvents } from '../events/event-log-statements.js';
import { appendAll, SqlEventLog } from '../events/sql-event-log.js';
import { PostgresPort } from '../sql/postgres-port.js';
import { namedStatement } from './named-statement.js';
import type { PostgresDatabase, PostgresQuery, TransactionConnection } from './postgres-database.js';

/**
 * A batch of events and the notifications that wake its runs' followers:
 * one statement ($6 the channels' prefix, $7 run ids; each run's channel is
 * the prefix and the md5 of its id, `runEventsChannel`).
 */
const appendNotifying = namedStatement(
  `WITH written AS (${appendEvents.postgres}) SELECT pg_notify($6 || md5(run_id), run_id) FROM unnest($7::text[]) AS run_id`,
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
   * Writes `events` and sends `pg_notify(channelPrefix || md5(runId), runId)`
   * for each of `runIds`, in one statement (one round trip, one
   * transaction): the notifications go out when the events commit, each on
   * its run's own channel, so only the connections listening for that run
   * are woken.
   *
   * @example
   * await log.appendNotifying({ events, channelPrefix: 'arbiter_run_events_', runIds: ['r1'] });
   */
  async appendNotifying({
    events,
    channelPrefix,
    runIds,
    onConnection,
  }: {
    events: readonly ExternalEvent[];
    /** Each run's channel is this and the md5 of its id in hex. */
    channelPrefix: string;
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
        channelPrefix,
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
