import type { Migration } from './migration.js';

/** Events tables. Versions 30-49. */
export const eventMigrations: readonly Migration[] = [
  {
    version: 30,
    name: 'run_events',
    sql: `
      CREATE TABLE run_events (
        run_id TEXT NOT NULL,
        seq    INTEGER NOT NULL,
        type   TEXT NOT NULL,
        at     INTEGER NOT NULL,
        event  TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      ) WITHOUT ROWID;
      CREATE INDEX run_events_by_time ON run_events (at);
    `,
  },
];
