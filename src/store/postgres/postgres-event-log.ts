import type { ExternalEvent } from '../../events/external-event.js';
import { appendAll, SqlEventLog } from '../events/sql-event-log.js';
import { PostgresPort } from '../sql/postgres-port.js';
import type { PostgresDatabase, PostgresQuery } from './postgres-database.js';

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

  constructor({ database }: { database: PostgresDatabase }) {
    const port = new PostgresPort(database);
    super({ port });
    this.#port = port;
  }

  /** `append` on the connection of a transaction its caller holds (the feed's, which notifies followers in it). */
  async appendWithin(query: PostgresQuery, events: readonly ExternalEvent[]): Promise<void> {
    await this.#port.within(query).run(appendAll(events));
  }
}
