import type { Migration } from './migration.js';

/** Runs: one row per finished run. Versions 1-9. */
export const coreMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'runs',
    sql: `
      CREATE TABLE runs (
        run_id        TEXT PRIMARY KEY,
        session_id    TEXT,
        model         TEXT NOT NULL,
        started_at    INTEGER NOT NULL,
        ended_at      INTEGER NOT NULL,
        stop_reason   TEXT NOT NULL,
        steps         INTEGER NOT NULL,
        input_tokens  INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        error_code    TEXT
      );
      CREATE INDEX runs_by_session ON runs (session_id, started_at);
    `,
  },
];
