import type { Migration } from '../../sqlite/migrations/migration.js';

/** The runs' external events, keyed by (run, seq). Versions 30-49, as in SQLite. */
export const eventPostgresMigrations: readonly Migration[] = [
  {
    version: 30,
    name: 'run_events',
    sql: `
      CREATE TABLE run_events (
        run_id text NOT NULL,
        seq    bigint NOT NULL,
        type   text NOT NULL,
        at     bigint NOT NULL,
        event  text NOT NULL,
        PRIMARY KEY (run_id, seq)
      );
      CREATE INDEX run_events_by_time ON run_events (at);
    `,
  },
];
