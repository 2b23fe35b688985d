import type { Migration } from '../../sqlite/migrations/migration.js';

/** Runs: one row per finished run. Versions 1-9, as in SQLite. */
export const corePostgresMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'runs',
    sql: `
      CREATE TABLE runs (
        run_id        text PRIMARY KEY,
        session_id    text,
        model         text NOT NULL,
        started_at    bigint NOT NULL,
        ended_at      bigint NOT NULL,
        stop_reason   text NOT NULL,
        steps         integer NOT NULL,
        input_tokens  bigint NOT NULL,
        output_tokens bigint NOT NULL,
        error_code    text
      );
      CREATE INDEX runs_by_session ON runs (session_id, started_at);
      CREATE INDEX runs_by_start ON runs (started_at);
    `,
  },
];
