import type { Migration } from './migration.js';

/** The server's runs: who started each, in which language, where its messages begin, why it failed. Versions 70-79. */
export const serverMigrations: readonly Migration[] = [
  {
    version: 70,
    name: 'server_runs',
    sql: `
      CREATE TABLE server_runs (
        run_id         TEXT PRIMARY KEY,
        session_id     TEXT NOT NULL,
        tenant_id      TEXT NOT NULL,
        principal      TEXT NOT NULL,
        locale         TEXT NOT NULL,
        status         TEXT NOT NULL,
        message_offset INTEGER NOT NULL,
        started_at     INTEGER NOT NULL,
        updated_at     INTEGER NOT NULL
      );
      CREATE INDEX server_runs_by_session ON server_runs (session_id, started_at);
      CREATE INDEX server_runs_by_status ON server_runs (status);
    `,
  },
  {
    version: 71,
    name: 'server_runs_failure',
    sql: `
      -- Why a run failed (JSON: the error code, and for a model call its endpoint, model, status and retry decisions).
      ALTER TABLE server_runs ADD COLUMN failure TEXT;
    `,
  },
];
