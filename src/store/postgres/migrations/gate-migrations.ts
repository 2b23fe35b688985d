import type { Migration } from '../../sqlite/migrations/migration.js';

/**
 * Gate tables: approvals, idempotency claims scoped by (tenant, user, key),
 * the append-only audit log. SQLite's tables as of its version 15, in three
 * steps; there is no pre-scoping key table (no PostgreSQL store predates
 * scoped keys). Versions 10-29, as in SQLite.
 */
export const gatePostgresMigrations: readonly Migration[] = [
  {
    version: 10,
    name: 'approvals',
    sql: `
      CREATE TABLE approvals (
        approval_id     text PRIMARY KEY,
        -- The order approvals were requested in (SQLite's rowid).
        position        bigint GENERATED ALWAYS AS IDENTITY,
        run_id          text NOT NULL,
        session_id      text,
        step            integer NOT NULL,
        tool_call_id    text NOT NULL,
        tool            text NOT NULL,
        arguments       text NOT NULL,
        arguments_hash  text NOT NULL,
        rule            text NOT NULL,
        reason          text NOT NULL,
        status          text NOT NULL DEFAULT 'pending'
                        CHECK (status IN ('pending', 'approved', 'rejected', 'denied')),
        approver        text,
        decision_reason text,
        created_at      bigint NOT NULL,
        decided_at      bigint,
        expires_at      bigint NOT NULL,
        consumed_at     bigint,
        UNIQUE (run_id, tool_call_id)
      );
      CREATE INDEX approvals_by_status ON approvals (status, created_at);
      CREATE INDEX approvals_by_session ON approvals (session_id, created_at);
    `,
  },
  {
    version: 11,
    name: 'idempotency_claims',
    sql: `
      CREATE TABLE idempotency_claims (
        tenant_id        text NOT NULL,
        scope_user_id    text NOT NULL,
        key              text NOT NULL,
        claimant_user_id text NOT NULL,
        status           text NOT NULL CHECK (status IN ('claimed', 'completed')),
        tool             text NOT NULL,
        run_id           text NOT NULL,
        tool_call_id     text NOT NULL,
        owner            text NOT NULL,
        outcome          text,
        claimed_at       bigint NOT NULL,
        completed_at     bigint,
        PRIMARY KEY (tenant_id, scope_user_id, key)
      );
    `,
  },
  {
    version: 12,
    name: 'audit_log',
    // Append-only: a trigger refuses UPDATE and DELETE of any row, and TRUNCATE of the table, for every role
    // that does not drop or disable the trigger itself (the table's owner can; a separate role without those
    // rights is how a deployment keeps even the application's own migrations from rewriting history).
    sql: `
      CREATE TABLE audit_log (
        audit_id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        at                     bigint NOT NULL,
        session_id             text,
        run_id                 text NOT NULL,
        step                   integer NOT NULL,
        tool_call_id           text NOT NULL,
        tool                   text NOT NULL,
        side_effect            text NOT NULL CHECK (side_effect IN ('read', 'reversible', 'irreversible')),
        arguments_hash         text NOT NULL,
        arguments              text NOT NULL,
        decision               text NOT NULL
                               CHECK (decision IN ('allowed', 'auto_approved', 'approved', 'rejected', 'denied')),
        rule                   text,
        approver               text,
        outcome                text NOT NULL,
        duration_ms            double precision NOT NULL,
        tenant_id              text,
        user_id                text,
        replay_of_run_id       text,
        replay_of_tool_call_id text
      );
      CREATE INDEX audit_by_session ON audit_log (session_id, audit_id);
      CREATE INDEX audit_by_run_tool_call ON audit_log (run_id, tool, tool_call_id);
      CREATE INDEX audit_by_principal_tool ON audit_log (tenant_id, user_id, tool, at);
      CREATE FUNCTION audit_log_refuses_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_log is append-only: rows cannot be %',
          CASE TG_OP WHEN 'UPDATE' THEN 'updated' WHEN 'DELETE' THEN 'deleted' ELSE 'truncated' END
          USING ERRCODE = 'restrict_violation';
      END;
      $$;
      CREATE TRIGGER audit_log_refuses_update_and_delete BEFORE UPDATE OR DELETE ON audit_log
        FOR EACH ROW EXECUTE FUNCTION audit_log_refuses_change();
      CREATE TRIGGER audit_log_refuses_truncate BEFORE TRUNCATE ON audit_log
        FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuses_change();
    `,
  },
  {
    version: 13,
    name: 'audit_retention',
    // The log stays append-only except through one path, PostgresAuditLog.purge: inside its transaction it sets
    // the transaction-local setting arbiter.audit_purge_before (set_config(…, true): gone at COMMIT or ROLLBACK,
    // so a pooled connection never carries it into another transaction), deletes the rows below it, clears it
    // and writes its own audit row. A DELETE without the setting, or of a row it does not cover, is refused as
    // before; so is any row younger than 30 days by the database's clock (auditRetentionFloorDays), whatever
    // the setting says. UPDATE and TRUNCATE stay refused. A setting rather than a SECURITY DEFINER function:
    // it needs no second role (the migrations run as the application's role, which owns the table and could
    // drop any trigger anyway); the function only adds protection where the application's role has no DELETE
    // privilege, which a deployment can grant on top of this.
    sql: `
      CREATE OR REPLACE FUNCTION audit_log_refuses_change() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        purge_before bigint := nullif(current_setting('arbiter.audit_purge_before', true), '')::bigint;
      BEGIN
        IF TG_OP = 'DELETE' AND purge_before IS NOT NULL THEN
          IF OLD.at < purge_before THEN
            IF OLD.at >= (extract(epoch FROM clock_timestamp()) * 1000)::bigint - 30 * 86400000::bigint THEN
              RAISE EXCEPTION 'audit_log keeps every row younger than 30 days' USING ERRCODE = 'restrict_violation';
            END IF;
            RETURN OLD;
          END IF;
        END IF;
        RAISE EXCEPTION 'audit_log is append-only: rows cannot be %',
          CASE TG_OP WHEN 'UPDATE' THEN 'updated' WHEN 'DELETE' THEN 'deleted' ELSE 'truncated' END
          USING ERRCODE = 'restrict_violation';
      END;
      $$;
    `,
  },
  {
    version: 19,
    name: 'history_reservations',
    // One row per principal (tenant + user) whose history a cumulative rule is reading: the holder (one call in one
    // process) until it is decided and audited, so two nodes cannot both spend the same headroom. A holder renews
    // expires_at while it works; a killed holder stops renewing and its row lapses (HistoryReservations).
    sql: `
      CREATE TABLE history_reservations (
        principal_key text PRIMARY KEY,
        holder        text NOT NULL,
        expires_at    bigint NOT NULL
      );
      `,
  },
  {
    version: 20,
    name: 'idempotency_claim_renewals',
    // A claim in flight is live while its owner renews it: renewed_at on the database's clock, and the lease the
    // owner promised to renew within. A reader judges the owner gone from these alone (never a pid, never its own
    // clock). NULL in both: a claim written before renewals, judged by its age.
    sql: `
      ALTER TABLE idempotency_claims ADD COLUMN renewed_at bigint;
      ALTER TABLE idempotency_claims ADD COLUMN lease_ms bigint;
    `,
  },
  {
    version: 21,
    name: 'audit_store',
    // The store's own id, written once: see SQLite's migration 21. A trigger refuses UPDATE, DELETE and TRUNCATE.
    sql: `
      CREATE TABLE audit_store (
        singleton  integer PRIMARY KEY CHECK (singleton = 1),
        store_id   text NOT NULL,
        created_at bigint NOT NULL
      );
      INSERT INTO audit_store (singleton, store_id, created_at)
        VALUES (1, md5(random()::text || clock_timestamp()::text || pg_backend_pid()::text),
          (extract(epoch FROM clock_timestamp()) * 1000)::bigint);
      CREATE FUNCTION audit_store_refuses_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_store cannot be changed' USING ERRCODE = 'restrict_violation';
      END;
      $$;
      CREATE TRIGGER audit_store_refuses_change BEFORE UPDATE OR DELETE ON audit_store
        FOR EACH ROW EXECUTE FUNCTION audit_store_refuses_change();
      CREATE TRIGGER audit_store_refuses_truncate BEFORE TRUNCATE ON audit_store
        FOR EACH STATEMENT EXECUTE FUNCTION audit_store_refuses_change();
    `,
  },
  {
    version: 26,
    name: 'audit_chain_origin',
    // When the hash chain began: see SQLite's migration 26. A trigger refuses UPDATE, DELETE and TRUNCATE.
    sql: `
      CREATE TABLE audit_chain_origin (
        singleton   integer PRIMARY KEY CHECK (singleton = 1),
        last_row_id bigint NOT NULL,
        rows_then   bigint NOT NULL,
        started_at  bigint NOT NULL
      );
      INSERT INTO audit_chain_origin (singleton, last_row_id, rows_then, started_at)
        SELECT 1, coalesce(max(audit_id), 0), count(*), (extract(epoch FROM clock_timestamp()) * 1000)::bigint
        FROM audit_log;
      CREATE FUNCTION audit_chain_origin_refuses_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_chain_origin cannot be changed' USING ERRCODE = 'restrict_violation';
      END;
      $$;
      CREATE TRIGGER audit_chain_origin_refuses_change BEFORE UPDATE OR DELETE ON audit_chain_origin
        FOR EACH ROW EXECUTE FUNCTION audit_chain_origin_refuses_change();
      CREATE TRIGGER audit_chain_origin_refuses_truncate BEFORE TRUNCATE ON audit_chain_origin
        FOR EACH STATEMENT EXECUTE FUNCTION audit_chain_origin_refuses_change();
    `,
  },
  {
    version: 27,
    name: 'audit_chain_writers',
    // The chain's second format (src/gate/audit-record-hash.ts): a chain per writer (one PostgresAuditLog on one node)
    // and tenant, each row its writer and its place in that chain, hashed as a named, versioned record. A writer
    // keeps its chains' heads in memory, so an append takes no lock and reads nothing: appends of one tenant on
    // different nodes never wait for each other. Rows of the first format keep both null and verify as before.
    sql: `
      ALTER TABLE audit_log ADD COLUMN chain_writer text;
      ALTER TABLE audit_log ADD COLUMN chain_seq bigint;
    `,
  },
  {
    version: 28,
    name: 'audit_hash_chain',
    // Each row carries the hash of the previous row of its tenant's chain and its own (src/gate/audit-chain.ts).
    // PostgresAuditLog.append reads the head of the chain under a transaction-level advisory lock on the tenant
    // and inserts in the same transaction, so two nodes never fork a chain; the index serves that read.
    sql: `
      ALTER TABLE audit_log ADD COLUMN previous_hash text;
      ALTER TABLE audit_log ADD COLUMN chain_hash text;
      CREATE INDEX audit_chain_head ON audit_log ((coalesce(tenant_id, '')), audit_id DESC);
    `,
  },
  {
    version: 29,
    name: 'pinned_definitions_and_grants',
    // What a decision was made under: the tool definition's fingerprint (a third party's tool, pinned at mount) on
    // audit rows (hashed into the chain when set), approvals and idempotency claims; and approvals as grants: the
    // version of the rules in force when the person was asked, and when an approval given expires unused.
    sql: `
      ALTER TABLE audit_log ADD COLUMN tool_fingerprint text;
      ALTER TABLE approvals ADD COLUMN tool_fingerprint text;
      ALTER TABLE approvals ADD COLUMN policy_version text;
      ALTER TABLE approvals ADD COLUMN grant_expires_at bigint;
      ALTER TABLE idempotency_claims ADD COLUMN tool_fingerprint text;
    `,
  },
];
