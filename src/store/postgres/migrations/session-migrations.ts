import type { Migration } from '../../sqlite/migrations/migration.js';

/**
 * Sessions, their messages, and the results of tool calls of runs in
 * progress: SQLite's tables as of its version 52, in one step. Versions
 * 50-69, as in SQLite.
 */
export const sessionPostgresMigrations: readonly Migration[] = [
  {
    version: 50,
    name: 'sessions',
    sql: `
      CREATE TABLE sessions (
        session_id        text PRIMARY KEY,
        tenant_id         text,
        user_id           text,
        status            text NOT NULL DEFAULT 'idle'
                          CHECK (status IN ('idle', 'running', 'awaiting_approval')),
        active_run_id     text,
        run_steps         integer NOT NULL DEFAULT 0,
        run_input_tokens  bigint NOT NULL DEFAULT 0,
        run_output_tokens bigint NOT NULL DEFAULT 0,
        run_cached_tokens bigint NOT NULL DEFAULT 0,
        run_last_seq      bigint NOT NULL DEFAULT 0,
        run_cost          double precision NOT NULL DEFAULT 0,
        step_count        bigint NOT NULL DEFAULT 0,
        input_tokens      bigint NOT NULL DEFAULT 0,
        output_tokens     bigint NOT NULL DEFAULT 0,
        cost              double precision NOT NULL DEFAULT 0,
        slots             text NOT NULL DEFAULT '{}',
        message_count     integer NOT NULL DEFAULT 0,
        version           bigint NOT NULL DEFAULT 0,
        forked_from       text,
        forked_at         integer,
        created_at        bigint NOT NULL,
        updated_at        bigint NOT NULL,
        expires_at        bigint,
        ttl_ms            bigint,
        -- The language and the model of the session's latest run: a run resumed elsewhere continues in them.
        run_locale        text,
        run_model         text
      );
      CREATE INDEX sessions_by_expiry ON sessions (expires_at);
      CREATE INDEX sessions_by_update ON sessions (updated_at);
      CREATE INDEX sessions_by_principal ON sessions (tenant_id, user_id, updated_at);
      CREATE TABLE session_messages (
        session_id text NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
        position   integer NOT NULL,
        run_id     text,
        message    text NOT NULL,
        created_at bigint NOT NULL,
        PRIMARY KEY (session_id, position)
      );
      CREATE TABLE tool_results (
        run_id       text NOT NULL,
        tool_call_id text NOT NULL,
        session_id   text,
        tool         text NOT NULL,
        content      text NOT NULL,
        outcome      text NOT NULL,
        created_at   bigint NOT NULL,
        PRIMARY KEY (run_id, tool_call_id)
      );
      CREATE INDEX tool_results_by_session ON tool_results (session_id);
    `,
  },
];
