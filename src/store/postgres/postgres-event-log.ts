import type { EventLog, ReadEventsOptions } from '../../events/event-log.js';
import type { ExternalEvent } from '../../events/external-event.js';
import { pruneRunEventsSql } from '../event-retention.js';
import { namedStatement } from './named-statement.js';
import type { PostgresDatabase } from './postgres-database.js';

// One statement per batch, whatever its size: the events travel as five arrays.
const appendEvents = namedStatement(
  `INSERT INTO run_events (run_id, seq, type, at, event)
   SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::text[])
   ON CONFLICT (run_id, seq) DO NOTHING`,
);
const readEvents = namedStatement('SELECT event FROM run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3');
const readEventsOfType = namedStatement(
  'SELECT event FROM run_events WHERE run_id = $1 AND seq > $2 AND type = $4 ORDER BY seq LIMIT $3',
);
const lastSeq = namedStatement('SELECT coalesce(max(seq), 0) AS seq FROM run_events WHERE run_id = $1');
// Whole runs whose last event is older than the cutoff, unless the run is still going (the rule both dialects share).
const prune = namedStatement(pruneRunEventsSql('$1'));

/**
 * The event log in PostgreSQL (table `run_events`, keyed by run and seq):
 * a batch is one statement, and the first copy of a (run, seq) stays.
 *
 * @example
 * const { events } = await openPostgresBackend({ connectionString });
 * for (const event of await events.readEvents({ runId, afterSeq })) send(event);
 */
export class PostgresEventLog implements EventLog {
  readonly #database: PostgresDatabase;

  constructor({ database }: { database: PostgresDatabase }) {
    this.#database = database;
  }

  async append(events: readonly ExternalEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.#database.query(appendEvents, [
      events.map((event) => event.runId),
      events.map((event) => event.seq),
      events.map((event) => event.type),
      events.map((event) => event.at),
      events.map((event) => JSON.stringify(event)),
    ]);
  }

  async readEvents({ runId, afterSeq = 0, limit = 1000, type }: ReadEventsOptions): Promise<readonly ExternalEvent[]> {
    const { rows } = await this.#database.query<{ event: string }>(
      type === undefined ? readEvents : readEventsOfType,
      type === undefined ? [runId, afterSeq, limit] : [runId, afterSeq, limit, type],
    );
    return rows.map((row) => JSON.parse(row.event) as ExternalEvent);
  }

  async lastSeq(runId: string): Promise<number> {
    const { rows } = await this.#database.query<{ seq: number }>(lastSeq, [runId]);
    return rows[0]?.seq ?? 0;
  }

  async prune({ before }: { readonly before: number }): Promise<number> {
    return (await this.#database.query(prune, [before])).rowCount;
  }
}
