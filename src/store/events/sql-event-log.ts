import type { EventLog, ReadEventsOptions } from '../../events/event-log.js';
import type { ExternalEvent } from '../../events/external-event.js';
import { pruneRunEventsSql } from '../event-retention.js';
import type { Answer, SqlMode, SqlPort } from '../sql/sql-port.js';
import {
  dialect,
  rows,
  run,
  type SqlProgram,
  type SqlStatement,
  type SqlValue,
  sql,
  transaction,
} from '../sql/sql-program.js';
import { appendEvents, lastSeq, readEvents, readEventsOfType, retentionTables } from './event-log-statements.js';

/**
 * The event log (table `run_events`) on either dialect, written once: the
 * first copy of a (run, seq) stays, a run's events are read in seq order,
 * and a prune removes whole finished runs only. It answers as its port
 * does: at once on SQLite (`SqliteEventLog`, the `SynchronousEventLog` the
 * server replays from), with promises on PostgreSQL (`PostgresEventLog`).
 *
 * @example
 * const log = new SqlEventLog({ port: new SqlitePort(store.database) });
 * log.append([{ type: 'run:start', runId, seq: 1, at: Date.now() }]);
 * log.lastSeq(runId); // 1
 */
export class SqlEventLog<Mode extends SqlMode> implements EventLog {
  protected readonly port: SqlPort<Mode>;

  constructor({ port }: { port: SqlPort<Mode> }) {
    this.port = port;
  }

  append(events: readonly ExternalEvent[]): Answer<Mode, void> {
    return this.port.run(appendAll(events));
  }

  readEvents({ runId, afterSeq = 0, limit = 1000, type }: ReadEventsOptions): Answer<Mode, readonly ExternalEvent[]> {
    return this.port.run(
      type === undefined
        ? eventsOf(readEvents, [runId, afterSeq, limit])
        : eventsOf(readEventsOfType, [runId, afterSeq, limit, type]),
    );
  }

  lastSeq(runId: string): Answer<Mode, number> {
    return this.port.run(lastSeqOf(runId));
  }

  prune({ before }: { readonly before: number }): Answer<Mode, number> {
    return this.port.run(prune(before));
  }
}

/**
 * Writes a batch as the dialect binds one (`appendEvents`): one statement on
 * PostgreSQL, one per event on SQLite, in one transaction when there are several.
 * A program, so a caller may run it inside a transaction of its own
 * (`PostgresEventLog.appendWithin`).
 *
 * @example
 * await port.within(query).run(appendAll(events));
 */
export function* appendAll(events: readonly ExternalEvent[]): SqlProgram<void> {
  if (events.length === 0) return;
  const batches: SqlValue[][] =
    (yield* dialect()) === 'postgres'
      ? [
          [
            events.map((event) => event.runId),
            events.map((event) => event.seq),
            events.map((event) => event.type),
            events.map((event) => event.at),
            events.map((event) => JSON.stringify(event)),
          ],
        ]
      : events.map((event) => [event.runId, event.seq, event.type, event.at, JSON.stringify(event)]);
  // A generator function of the module's, not one made per call (issue 48: its hidden class would keep the batch alive).
  yield* batches.length === 1 ? insertBatches(batches) : transaction(() => insertBatches(batches));
}

/** One insert per batch of values. */
function* insertBatches(batches: readonly SqlValue[][]): SqlProgram<void> {
  for (const values of batches) yield* run(appendEvents, values);
}

function* eventsOf(statement: SqlStatement, values: readonly SqlValue[]): SqlProgram<readonly ExternalEvent[]> {
  return (yield* rows<{ event: string }>(statement, values)).map((row) => JSON.parse(row.event) as ExternalEvent);
}

function* lastSeqOf(runId: string): SqlProgram<number> {
  const [row] = yield* rows<{ seq: number | null }>(lastSeq, [runId]);
  return row?.seq ?? 0;
}

function* prune(before: number): SqlProgram<number> {
  const tables = new Set((yield* rows<{ name: string }>(retentionTables)).map((row) => row.name));
  return yield* run(
    sql(pruneRunEventsSql('$1', { sessions: tables.has('sessions'), serverRuns: tables.has('server_runs') })),
    [before],
  );
}
