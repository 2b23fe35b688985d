import type { Migration } from './migration.js';

/** Sessions, their messages, and the results of tool calls of runs in progress. Versions 50-69. */
export const sessionMigrations: readonly Migration[] = [
  {
    version: 50,
    name: 'sessions',
    sql: `
      CREATE TABLE sessions (
        session_id     TEXT PRIMARY KEY,
        tenant_id      TEXT,
        user_id        TEXT,
        status         TEXT NOT NULL DEFAULT 'idle',
        active_run_id  TEXT,
        run_steps      INTEGER NOT NULL DEFAULT 0,
        run_input_tokens  INTEGER NOT NULL DEFAULT 0,
        run_output_tokens INTEGER NOT NULL DEFAULT 0,
        run_cached_tokens INTEGER NOT NULL DEFAULT 0,
        run_last_seq   INTEGER NOT NULL DEFAULT 0,
        step_count     INTEGER NOT NULL DEFAULT 0,
        input_tokens   INTEGER NOT NULL DEFAULT 0,
        output_tokens  INTEGER NOT NULL DEFAULT 0,
        slots          TEXT NOT NULL DEFAULT '{}',
        message_count  INTEGER NOT NULL DEFAULT 0,
        version        INTEGER NOT NULL DEFAULT 0,
        forked_from    TEXT,
        created_at     INTEGER NOT NULL,
        updated_at     INTEGER NOT NULL,
        expires_at     INTEGER
      );
      CREATE TABLE session_messages (
        session_id TEXT NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
        position   INTEGER NOT NULL,
        run_id     TEXT,
        message    TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (session_id, position)
      );
      CREATE TABLE tool_results (
        run_id       TEXT NOT NULL,
        tool_call_id TEXT NOT NULL,
        session_id   TEXT,
        tool         TEXT NOT NULL,
        content      TEXT NOT NULL,
        outcome      TEXT NOT NULL,
        created_at   INTEGER NOT NULL,
        PRIMARY KEY (run_id, tool_call_id)
      );
      CREATE INDEX sessions_by_expiry ON sessions (expires_at);
    `,
  },
  {
    version: 51,
    name: 'session_ttl_forks_and_cost',
    sql: `
      ALTER TABLE sessions ADD COLUMN ttl_ms INTEGER;
      ALTER TABLE sessions ADD COLUMN run_cost REAL NOT NULL DEFAULT 0;
      ALTER TABLE sessions ADD COLUMN cost REAL NOT NULL DEFAULT 0;
      ALTER TABLE sessions ADD COLUMN forked_at INTEGER;
      CREATE INDEX sessions_by_update ON sessions (updated_at);
      CREATE INDEX tool_results_by_session ON tool_results (session_id);
    `,
  },
  {
    version: 52,
    name: 'session_run_locale_and_model',
    sql: `
      -- The language and the model of the session's latest run (the active one, while there is one):
      -- a run resumed by another process, or by another command, continues in them.
      ALTER TABLE sessions ADD COLUMN run_locale TEXT;
      ALTER TABLE sessions ADD COLUMN run_model TEXT;
    `,
  },
];
