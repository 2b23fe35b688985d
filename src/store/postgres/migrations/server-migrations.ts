import type { Migration } from '../../sqlite/migrations/migration.js';

/**
 * The server's runs as SQLite's migrations 70-71 left them, plus what many
 * nodes on one database need: the lease on each run (which node executes
 * it, until when), the streams each node holds open, and the requests each
 * principal made, so per-principal limits are counted here rather than in
 * one process (72: each check one function call). Versions 70-79, as in
 * SQLite (72 is PostgreSQL's alone).
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
  {
    // One round trip per check instead of seven (BEGIN, lock, clock, delete, count, insert, COMMIT): each
    // call is a transaction of its own, and each statement inside a (volatile) function reads a fresh
    // snapshot, so the counts after the lock see every request committed before it, as before.
    version: 72,
    name: 'principal_limit_functions',
    sql: `
      CREATE FUNCTION arbiter_take_request(p_key text, p_kind text, p_window_ms bigint, p_limit integer)
        RETURNS integer LANGUAGE plpgsql AS $$
      DECLARE
        v_now bigint;
        v_taken integer;
        v_oldest bigint;
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtext(p_key), hashtext(p_kind));
        v_now := (extract(epoch from clock_timestamp()) * 1000)::bigint;
        DELETE FROM principal_requests WHERE principal_key = p_key AND kind = p_kind AND at <= v_now - p_window_ms;
        SELECT count(*)::int, min(at) INTO v_taken, v_oldest
          FROM principal_requests WHERE principal_key = p_key AND kind = p_kind;
        IF v_taken >= p_limit THEN
          RETURN greatest(1, ceil((coalesce(v_oldest, v_now) + p_window_ms - v_now) / 1000.0))::integer;
        END IF;
        INSERT INTO principal_requests (principal_key, kind, at) VALUES (p_key, p_kind, v_now);
        RETURN NULL;
      END $$;
      CREATE FUNCTION arbiter_open_stream(
        p_stream text, p_key text, p_node text, p_ttl_ms bigint, p_max integer, p_closed text[]
      ) RETURNS boolean LANGUAGE plpgsql AS $$
      DECLARE
        v_now bigint;
        v_open integer;
      BEGIN
        -- Streams the node closed since its last write give their slots back first (any user's).
        IF cardinality(p_closed) > 0 THEN
          DELETE FROM server_streams WHERE stream_id = ANY(p_closed);
        END IF;
        PERFORM pg_advisory_xact_lock(hashtext(p_key), hashtext('stream'));
        v_now := (extract(epoch from clock_timestamp()) * 1000)::bigint;
        SELECT count(*)::int INTO v_open FROM server_streams WHERE principal_key = p_key AND expires_at > v_now;
        IF v_open >= p_max THEN
          RETURN false;
        END IF;
        INSERT INTO server_streams (stream_id, principal_key, node_id, expires_at)
          VALUES (p_stream, p_key, p_node, v_now + p_ttl_ms);
        RETURN true;
      END $$;
    `,
  },
];
