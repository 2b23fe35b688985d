import type { Migration } from './migration.js';

/** Gate tables: approvals, idempotency keys, the append-only audit log. Versions 10-29. */
export const gateMigrations: readonly Migration[] = [
  {
    version: 10,
    name: 'approvals',
    sql: `
      CREATE TABLE approvals (
        approval_id     TEXT PRIMARY KEY,
        run_id          TEXT NOT NULL,
        session_id      TEXT,
        step            INTEGER NOT NULL,
        tool_call_id    TEXT NOT NULL,
        tool            TEXT NOT NULL,
        arguments       TEXT NOT NULL,
        arguments_hash  TEXT NOT NULL,
        rule            TEXT NOT NULL,
        reason          TEXT NOT NULL,
        status          TEXT NOT NULL DEFAULT 'pending'
                        CHECK (status IN ('pending', 'approved', 'rejected', 'denied')),
        approver        TEXT,
        decision_reason TEXT,
        created_at      INTEGER NOT NULL,
        decided_at      INTEGER,
        expires_at      INTEGER NOT NULL,
        consumed_at     INTEGER,
        UNIQUE (run_id, tool_call_id)
      );
      CREATE INDEX approvals_by_status ON approvals (status, created_at);
      CREATE INDEX approvals_by_session ON approvals (session_id, created_at);
    `,
  },
  {
    version: 11,
    name: 'idempotency_keys',
    sql: `
      CREATE TABLE idempotency_keys (
        key          TEXT PRIMARY KEY,
        status       TEXT NOT NULL CHECK (status IN ('claimed', 'completed')),
        tool         TEXT NOT NULL,
        run_id       TEXT NOT NULL,
        tool_call_id TEXT NOT NULL,
        owner        TEXT NOT NULL,
        outcome      TEXT,
        claimed_at   INTEGER NOT NULL,
        completed_at INTEGER
      );
    `,
  },
  {
    version: 12,
    name: 'audit_log',
    sql: `
      CREATE TABLE audit_log (
        audit_id       INTEGER PRIMARY KEY AUTOINCREMENT,
        at             INTEGER NOT NULL,
        session_id     TEXT,
        run_id         TEXT NOT NULL,
        step           INTEGER NOT NULL,
        tool_call_id   TEXT NOT NULL,
        tool           TEXT NOT NULL,
        side_effect    TEXT NOT NULL CHECK (side_effect IN ('read', 'reversible', 'irreversible')),
        arguments_hash TEXT NOT NULL,
        arguments      TEXT NOT NULL,
        decision       TEXT NOT NULL
                       CHECK (decision IN ('allowed', 'auto_approved', 'approved', 'rejected', 'denied')),
        rule           TEXT,
        approver       TEXT,
        outcome        TEXT NOT NULL,
        duration_ms    REAL NOT NULL
      );
      CREATE INDEX audit_by_session ON audit_log (session_id, audit_id);
      CREATE INDEX audit_by_call ON audit_log (run_id, tool_call_id);
      CREATE TRIGGER audit_log_refuses_update BEFORE UPDATE ON audit_log
      BEGIN
        SELECT RAISE(ABORT, 'audit_log is append-only: rows cannot be updated');
      END;
      CREATE TRIGGER audit_log_refuses_delete BEFORE DELETE ON audit_log
      BEGIN
        SELECT RAISE(ABORT, 'audit_log is append-only: rows cannot be deleted');
      END;
    `,
  },
  {
    version: 13,
    name: 'idempotency_keys_scoped',
    // A key belongs to a tenant and, unless the tool opts into a tenant-wide key, to one user of it: the
    // primary key is the triple, so the same business key of two principals are two keys. Keys claimed before
    // this version had no owner; they are kept as keys of calls without a principal ('' and '').
    sql: `
      CREATE TABLE idempotency_claims (
        tenant_id        TEXT NOT NULL,
        scope_user_id    TEXT NOT NULL,
        key              TEXT NOT NULL,
        claimant_user_id TEXT NOT NULL,
        status           TEXT NOT NULL CHECK (status IN ('claimed', 'completed')),
        tool             TEXT NOT NULL,
        run_id           TEXT NOT NULL,
        tool_call_id     TEXT NOT NULL,
        owner            TEXT NOT NULL,
        outcome          TEXT,
        claimed_at       INTEGER NOT NULL,
        completed_at     INTEGER,
        PRIMARY KEY (tenant_id, scope_user_id, key)
      );
      INSERT INTO idempotency_claims (tenant_id, scope_user_id, key, claimant_user_id, status, tool, run_id,
        tool_call_id, owner, outcome, claimed_at, completed_at)
      SELECT '', '', key, '', status, tool, run_id, tool_call_id, owner, outcome, claimed_at, completed_at
      FROM idempotency_keys;
      -- Whose they were is unknown, so a call of any principal with one of these keys is never run again
      -- automatically: it reads as outcome unknown and a person checks (SqliteIdempotencyStore.claim).
      CREATE TABLE idempotency_keys_before_scoping (
        key          TEXT PRIMARY KEY,
        run_id       TEXT NOT NULL,
        tool_call_id TEXT NOT NULL,
        claimed_at   INTEGER NOT NULL
      );
      INSERT INTO idempotency_keys_before_scoping (key, run_id, tool_call_id, claimed_at)
      SELECT key, run_id, tool_call_id, claimed_at FROM idempotency_keys;
      DROP TABLE idempotency_keys;
    `,
  },
  {
    version: 14,
    name: 'audit_log_principal_and_replays',
    sql: `
      ALTER TABLE audit_log ADD COLUMN tenant_id TEXT;
      ALTER TABLE audit_log ADD COLUMN user_id TEXT;
      ALTER TABLE audit_log ADD COLUMN replay_of_run_id TEXT;
      ALTER TABLE audit_log ADD COLUMN replay_of_tool_call_id TEXT;
      CREATE INDEX audit_by_principal_tool ON audit_log (tenant_id, user_id, tool, at);
      CREATE INDEX audit_by_run_tool ON audit_log (run_id, tool);
    `,
  },
  {
    version: 15,
    name: 'audit_log_lean_append',
    // An append was the costliest write of a gated call. The log is rebuilt, every row and its audit_id kept:
    // - without AUTOINCREMENT (no sqlite_sequence write per row): the triggers refuse DELETE and UPDATE, so
    //   the largest rowid never goes away and a plain INTEGER PRIMARY KEY still only grows;
    // - with audit_by_call (run_id, tool_call_id) and audit_by_run_tool (run_id, tool) merged into one index
    //   on (run_id, tool, tool_call_id): a run's calls, of one tool, by id, are all still found through it.
    // The triggers go with the old table and are created again on the new one.
    sql: `
      CREATE TABLE audit_log_rebuilt (
        audit_id       INTEGER PRIMARY KEY,
        at             INTEGER NOT NULL,
        session_id     TEXT,
        run_id         TEXT NOT NULL,
        step           INTEGER NOT NULL,
        tool_call_id   TEXT NOT NULL,
        tool           TEXT NOT NULL,
        side_effect    TEXT NOT NULL CHECK (side_effect IN ('read', 'reversible', 'irreversible')),
        arguments_hash TEXT NOT NULL,
        arguments      TEXT NOT NULL,
        decision       TEXT NOT NULL
                       CHECK (decision IN ('allowed', 'auto_approved', 'approved', 'rejected', 'denied')),
        rule           TEXT,
        approver       TEXT,
        outcome        TEXT NOT NULL,
        duration_ms    REAL NOT NULL,
        tenant_id      TEXT,
        user_id        TEXT,
        replay_of_run_id       TEXT,
        replay_of_tool_call_id TEXT
      );
      INSERT INTO audit_log_rebuilt (audit_id, at, session_id, run_id, step, tool_call_id, tool, side_effect,
        arguments_hash, arguments, decision, rule, approver, outcome, duration_ms, tenant_id, user_id,
        replay_of_run_id, replay_of_tool_call_id)
      SELECT audit_id, at, session_id, run_id, step, tool_call_id, tool, side_effect, arguments_hash, arguments,
        decision, rule, approver, outcome, duration_ms, tenant_id, user_id, replay_of_run_id, replay_of_tool_call_id
      FROM audit_log ORDER BY audit_id;
      DROP TABLE audit_log;
      ALTER TABLE audit_log_rebuilt RENAME TO audit_log;
      CREATE INDEX audit_by_session ON audit_log (session_id, audit_id);
      CREATE INDEX audit_by_run_tool_call ON audit_log (run_id, tool, tool_call_id);
      CREATE INDEX audit_by_principal_tool ON audit_log (tenant_id, user_id, tool, at);
      CREATE TRIGGER audit_log_refuses_update BEFORE UPDATE ON audit_log
      BEGIN
        SELECT RAISE(ABORT, 'audit_log is append-only: rows cannot be updated');
      END;
      CREATE TRIGGER audit_log_refuses_delete BEFORE DELETE ON audit_log
      BEGIN
        SELECT RAISE(ABORT, 'audit_log is append-only: rows cannot be deleted');
      END;
    `,
  },
  {
    version: 16,
    name: 'audit_retention',
    // The log stays append-only except through one path, SqliteAuditLog.purge: inside its transaction it puts
    // a cutoff into the one-row audit_retention, deletes the rows below it, writes its own audit row and takes
    // the cutoff out again, so no committed state ever authorises a DELETE. A DELETE of a row the cutoff does
    // not cover, or with no cutoff set, is refused as before; so is any row younger than 30 days by the
    // database's own clock (auditRetentionFloorDays), whatever the cutoff says. UPDATE stays refused.
    sql: `
      CREATE TABLE audit_retention (
        singleton    INTEGER PRIMARY KEY CHECK (singleton = 1),
        purge_before INTEGER NOT NULL
      );
      DROP TRIGGER audit_log_refuses_delete;
      CREATE TRIGGER audit_log_refuses_delete BEFORE DELETE ON audit_log
      BEGIN
        SELECT CASE
          WHEN NOT EXISTS (SELECT 1 FROM audit_retention WHERE OLD.at < purge_before)
            THEN RAISE(ABORT, 'audit_log is append-only: rows cannot be deleted')
          WHEN OLD.at >= (julianday('now') - 2440587.5 - 30) * 86400000
            THEN RAISE(ABORT, 'audit_log keeps every row younger than 30 days')
        END;
      END;
    `,
  },
  {
    version: 17,
    name: 'audit_by_session_partial',
    // A call without a session (runAgent on its own, a call through the MCP server) is never looked up by
    // session: every query by session names one (session_id = ?). Leaving those rows out of the index saves
    // an index entry, and a page in the commit that appends them, per call.
    sql: `
      DROP INDEX audit_by_session;
      CREATE INDEX audit_by_session ON audit_log (session_id, audit_id) WHERE session_id IS NOT NULL;
    `,
  },
  {
    version: 18,
    name: 'audit_log_checks_without_in_lists',
    // SQLite evaluated the CHECKs written as \`side_effect IN ('read', …)\` and \`decision IN (…)\` through a
    // list built for the statement, about 3 µs a row: as much as the rest of an append without indexes.
    // The same constraints written as comparisons joined by OR cost nothing measurable. The log is
    // rebuilt as in migration 15, every row and its audit_id kept (DROP TABLE fires no DELETE trigger),
    // then its indexes and the triggers of migrations 15 and 16 are created again, unchanged.
    sql: `
      CREATE TABLE audit_log_rebuilt (
        audit_id       INTEGER PRIMARY KEY,
        at             INTEGER NOT NULL,
        session_id     TEXT,
        run_id         TEXT NOT NULL,
        step           INTEGER NOT NULL,
        tool_call_id   TEXT NOT NULL,
        tool           TEXT NOT NULL,
        side_effect    TEXT NOT NULL
                       CHECK (side_effect = 'read' OR side_effect = 'reversible' OR side_effect = 'irreversible'),
        arguments_hash TEXT NOT NULL,
        arguments      TEXT NOT NULL,
        decision       TEXT NOT NULL
                       CHECK (decision = 'allowed' OR decision = 'auto_approved' OR decision = 'approved'
                              OR decision = 'rejected' OR decision = 'denied'),
        rule           TEXT,
        approver       TEXT,
        outcome        TEXT NOT NULL,
        duration_ms    REAL NOT NULL,
        tenant_id      TEXT,
        user_id        TEXT,
        replay_of_run_id       TEXT,
        replay_of_tool_call_id TEXT
      );
      INSERT INTO audit_log_rebuilt (audit_id, at, session_id, run_id, step, tool_call_id, tool, side_effect,
        arguments_hash, arguments, decision, rule, approver, outcome, duration_ms, tenant_id, user_id,
        replay_of_run_id, replay_of_tool_call_id)
      SELECT audit_id, at, session_id, run_id, step, tool_call_id, tool, side_effect, arguments_hash, arguments,
        decision, rule, approver, outcome, duration_ms, tenant_id, user_id, replay_of_run_id, replay_of_tool_call_id
      FROM audit_log ORDER BY audit_id;
      DROP TABLE audit_log;
      ALTER TABLE audit_log_rebuilt RENAME TO audit_log;
      CREATE INDEX audit_by_session ON audit_log (session_id, audit_id) WHERE session_id IS NOT NULL;
      CREATE INDEX audit_by_run_tool_call ON audit_log (run_id, tool, tool_call_id);
      CREATE INDEX audit_by_principal_tool ON audit_log (tenant_id, user_id, tool, at);
      CREATE TRIGGER audit_log_refuses_update BEFORE UPDATE ON audit_log
      BEGIN
        SELECT RAISE(ABORT, 'audit_log is append-only: rows cannot be updated');
      END;
      CREATE TRIGGER audit_log_refuses_delete BEFORE DELETE ON audit_log
      BEGIN
        SELECT CASE
          WHEN NOT EXISTS (SELECT 1 FROM audit_retention WHERE OLD.at < purge_before)
            THEN RAISE(ABORT, 'audit_log is append-only: rows cannot be deleted')
          WHEN OLD.at >= (julianday('now') - 2440587.5 - 30) * 86400000
            THEN RAISE(ABORT, 'audit_log keeps every row younger than 30 days')
        END;
      END;
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
        principal_key TEXT PRIMARY KEY,
        holder        TEXT NOT NULL,
        expires_at    INTEGER NOT NULL
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
      ALTER TABLE idempotency_claims ADD COLUMN renewed_at INTEGER;
      ALTER TABLE idempotency_claims ADD COLUMN lease_ms INTEGER;
    `,
  },
  {
    version: 21,
    name: 'audit_store',
    // The store's own id, written once when the store is created (or upgraded to this release), random: an anchor
    // (`arbiter audit anchor`) names the store it was taken of, so another store's anchor is told apart from rows
    // deleted. The id and the record of when the chain began (audit_chain_origin) are hashed together into the first
    // row of every chain begun since (its previous hash: the origin seal, src/gate/audit-origin-seal.ts), into purge
    // checkpoints and into anchors, so changing either shows in \`arbiter audit verify\`. Triggers refuse to change it.
    sql: `
      CREATE TABLE audit_store (
        singleton  INTEGER PRIMARY KEY CHECK (singleton = 1),
        store_id   TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      INSERT INTO audit_store (singleton, store_id, created_at)
        VALUES (1, lower(hex(randomblob(16))), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
      CREATE TRIGGER audit_store_refuses_update BEFORE UPDATE ON audit_store
      BEGIN
        SELECT RAISE(ABORT, 'audit_store cannot be changed');
      END;
      CREATE TRIGGER audit_store_refuses_delete BEFORE DELETE ON audit_store
      BEGIN
        SELECT RAISE(ABORT, 'audit_store cannot be changed');
      END;
    `,
  },
  {
    version: 26,
    name: 'audit_chain_origin',
    // When the hash chain began, so that `arbiter audit verify` can tell a row older than the chain (written
    // without hashes by a release before it) from a row slipped in without hashes since: the newest audit_id and the
    // number of rows when this migration ran (on a store created since, 0 and 0), and the database's clock then.
    // A row without hashes is accepted only at or below that id, older than that time and before the first chained
    // row; rows at or below that id may only become fewer (a purge), never more. Runs before migration 28 on a new
    // store, after it on one that already had the chain: either way no row written since has an id at or below it.
    // Triggers refuse to change or delete the one row, like the log's.
    sql: `
      CREATE TABLE audit_chain_origin (
        singleton   INTEGER PRIMARY KEY CHECK (singleton = 1),
        last_row_id INTEGER NOT NULL,
        rows_then   INTEGER NOT NULL,
        started_at  INTEGER NOT NULL
      );
      INSERT INTO audit_chain_origin (singleton, last_row_id, rows_then, started_at)
        SELECT 1, coalesce(max(audit_id), 0), count(*), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
        FROM audit_log;
      CREATE TRIGGER audit_chain_origin_refuses_update BEFORE UPDATE ON audit_chain_origin
      BEGIN
        SELECT RAISE(ABORT, 'audit_chain_origin cannot be changed');
      END;
      CREATE TRIGGER audit_chain_origin_refuses_delete BEFORE DELETE ON audit_chain_origin
      BEGIN
        SELECT RAISE(ABORT, 'audit_chain_origin cannot be changed');
      END;
    `,
  },
  {
    version: 27,
    name: 'audit_chain_writers',
    // The chain's second format (src/gate/audit-record-hash.ts): a chain per writer and tenant, each row its writer
    // and its place in that chain, hashed as a named, versioned record. A SQLite file is one writer ('sqlite').
    // Rows of the first format keep both null and verify as before.
    sql: `
      ALTER TABLE audit_log ADD COLUMN chain_writer TEXT;
      ALTER TABLE audit_log ADD COLUMN chain_seq INTEGER;
    `,
  },
  {
    version: 28,
    name: 'audit_hash_chain',
    // Each row carries the hash of the previous row of its tenant's chain and its own (src/gate/audit-chain.ts),
    // so a row changed, deleted or inserted by SQL shows in \`arbiter audit verify\`. Rows written before stay
    // without hashes and are not checked. No index: SqliteAuditLog caches each chain's head per connection and
    // reads it from the end of the log only after another connection wrote.
    sql: `
      ALTER TABLE audit_log ADD COLUMN previous_hash TEXT;
      ALTER TABLE audit_log ADD COLUMN chain_hash TEXT;
    `,
  },
  {
    version: 29,
    name: 'pinned_definitions_and_grants',
    // What a decision was made under: the tool definition's fingerprint (a third party's tool, pinned at mount) on
    // audit rows (hashed into the chain when set), approvals and idempotency claims; and approvals as grants: the
    // version of the rules in force when the person was asked, and when an approval given expires unused.
    sql: `
      ALTER TABLE audit_log ADD COLUMN tool_fingerprint TEXT;
      ALTER TABLE approvals ADD COLUMN tool_fingerprint TEXT;
      ALTER TABLE approvals ADD COLUMN policy_version TEXT;
      ALTER TABLE approvals ADD COLUMN grant_expires_at INTEGER;
      ALTER TABLE idempotency_claims ADD COLUMN tool_fingerprint TEXT;
    `,
  },
];
