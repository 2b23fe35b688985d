import type { Migration } from '../../sqlite/migrations/migration.js';

/**
 * The server's runs as SQLite's migrations 70-71 left them, plus what many
 * nodes on one database need: the lease on each run (which node executes
 * it, until when), the streams each node holds open, and the requests each
 * principal made, so per-principal limits are counted here rather than in
 * one process. Versions 70-79, as in SQLite.
 */
export const serverPostgresMigrations: readonly Migration[] = [
  {
    version: 70,
    name: 'server_runs',
    sql: `
      CREATE TABLE server_runs (
        run_id           text PRIMARY KEY,
        session_id       text NOT NULL,
        tenant_id        text NOT NULL,
        principal        text NOT NULL,
        locale           text NOT NULL,
        status           text NOT NULL,
        message_offset   integer NOT NULL,
        started_at       bigint NOT NULL,
        updated_at       bigint NOT NULL,
        failure          text,
        -- The node executing the run and until when (the database's clock, in ms); NULL: no node holds it.
        lease_owner      text,
        lease_expires_at bigint,
        -- Its approvals were all decided while it was still stopping: it is requeued as soon as it stops.
        resume_requested boolean NOT NULL DEFAULT false
      );
      CREATE INDEX server_runs_by_session ON server_runs (session_id, started_at);
      -- The work queue: runs to execute whose lease is free or lapsed.
      CREATE INDEX server_runs_to_claim ON server_runs (lease_expires_at) WHERE status = 'running';
      CREATE TABLE server_streams (
        stream_id     text PRIMARY KEY,
        principal_key text NOT NULL,
        node_id       text NOT NULL,
        expires_at    bigint NOT NULL
      );
      CREATE INDEX server_streams_by_principal ON server_streams (principal_key, expires_at);
      CREATE TABLE principal_requests (
        principal_key text NOT NULL,
        kind          text NOT NULL,
        at            bigint NOT NULL
      );
      CREATE INDEX principal_requests_by_key ON principal_requests (principal_key, kind, at);
    `,
  },
];
