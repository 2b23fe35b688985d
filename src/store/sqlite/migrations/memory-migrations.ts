import type { Migration } from './migration.js';

/**
 * Long-term memory, versions 80-89: one row per fact version (tenant, user,
 * key, value, provenance, trust, expiry, supersession) and an FTS5 index of
 * each version's search terms (see `searchTerms`), each prefixed with its
 * owner's scope (see `scopedSearchTerms`), so a search reads one user's
 * postings only.
 */
export const memoryMigrations: readonly Migration[] = [
  {
    version: 80,
    name: 'memory_facts',
    sql: `
      CREATE TABLE memory_facts (
        seq            INTEGER PRIMARY KEY,
        fact_id        TEXT NOT NULL UNIQUE,
        tenant_id      TEXT NOT NULL,
        user_id        TEXT NOT NULL,
        key            TEXT NOT NULL,
        value          TEXT NOT NULL,
        source_kind    TEXT NOT NULL CHECK (source_kind IN ('user', 'tool', 'model')),
        source_run_id  TEXT,
        source_message_id TEXT,
        source_call_id TEXT,
        source_tool    TEXT,
        trusted        INTEGER NOT NULL CHECK (trusted IN (0, 1)),
        sensitive      INTEGER NOT NULL CHECK (sensitive IN (0, 1)),
        created_at     INTEGER NOT NULL,
        expires_at     INTEGER,
        supersedes     TEXT,
        superseded_by  TEXT,
        retracted_at   INTEGER,
        embedding      TEXT
      );
      CREATE INDEX memory_facts_by_owner_key ON memory_facts (tenant_id, user_id, key, seq);
      -- At most one current value per key and owner.
      CREATE UNIQUE INDEX memory_facts_current ON memory_facts (tenant_id, user_id, key)
        WHERE superseded_by IS NULL AND retracted_at IS NULL;
      CREATE INDEX memory_facts_by_expiry ON memory_facts (expires_at) WHERE expires_at IS NOT NULL;
      CREATE VIRTUAL TABLE memory_facts_search USING fts5(terms, tokenize = 'unicode61 remove_diacritics 0');
    `,
  },
];
