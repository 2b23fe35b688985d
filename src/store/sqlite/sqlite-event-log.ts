import type Database from 'better-sqlite3';
import type { EventLog, ReadEventsOptions } from '../../events/event-log.js';
import type { ExternalEvent } from '../../events/external-event.js';
import { pruneRunEventsSql } from '../event-retention.js';
import { type PreparedStatements, preparedStatements } from './prepared-statements.js';

/**
 * The event log in the runtime store's SQLite database (table `run_events`,
 * migration 30). Pass `store.database` from `openSqliteStore`.
 *
 * @example
 * const store = openSqliteStore({ path: ':memory:' });
 * const log = new SqliteEventLog({ database: store.database });
 */
export class SqliteEventLog implements EventLog {
  readonly #statement: PreparedStatements;
  readonly #appendAll: (events: readonly ExternalEvent[]) => void;

  constructor({ database }: { database: Database.Database }) {
    this.#statement = preparedStatements(database);
    this.#appendAll = database.transaction((events: readonly ExternalEvent[]) => {
      const insert = this.#statement(
        'INSERT OR IGNORE INTO run_events (run_id, seq, type, at, event) VALUES (?, ?, ?, ?, ?)',
      );
      for (const event of events) insert.run(event.runId, event.seq, event.type, event.at, JSON.stringify(event));
    });
  }

  append(events: readonly ExternalEvent[]): void {
    if (events.length === 0) return;
    this.#appendAll(events);
  }

  readEvents({ runId, afterSeq = 0, limit = 1000, type }: ReadEventsOptions): readonly ExternalEvent[] {
    const rows = (
      type === undefined
        ? this.#statement('SELECT event FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?').all(
            runId,
            afterSeq,
            limit,
          )
        : this.#statement(
            'SELECT event FROM run_events WHERE run_id = ? AND seq > ? AND type = ? ORDER BY seq LIMIT ?',
          ).all(runId, afterSeq, type, limit)
    ) as { event: string }[];
    return rows.map((row) => JSON.parse(row.event) as ExternalEvent);
  }

  lastSeq(runId: string): number {
    const row = this.#statement('SELECT MAX(seq) AS seq FROM run_events WHERE run_id = ?').get(runId) as
      | { seq: number | null }
      | undefined;
    return row?.seq ?? 0;
  }

  prune({ before }: { readonly before: number }): number {
    // A database migrated without the session or server tables (a custom migration list) has no active runs there.
    const tables = new Set(
      (
        this.#statement(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('sessions', 'server_runs')",
        ).all() as { name: string }[]
      ).map((row) => row.name),
    );
    return this.#statement(
      pruneRunEventsSql('?', { sessions: tables.has('sessions'), serverRuns: tables.has('server_runs') }),
    ).run(before).changes;
  }
}
