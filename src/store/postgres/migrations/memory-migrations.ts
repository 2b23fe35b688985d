import type { Migration } from '../../sqlite/migrations/migration.js';

/**
 * Long-term memory as SQLite's migration 80 left it, with PostgreSQL's own
 * full-text search in place of FTS5: a GIN-indexed `tsvector` of each
 * version's search terms, the same terms SQLite indexes (`searchTerms`:
 * words, and Chinese characters and character pairs, each prefixed with the
 * owner's scope). The vector is built from the terms as they are
 * (`array_to_tsvector`), with no parser or dictionary in between: like the
 * `simple` configuration it neither stems nor drops words, and unlike any
 * configuration it cannot split a Chinese pair or a scoped term. Versions
 * 80-89, as in SQLite.
 */
export const memoryPostgresMigrations: readonly Migration[] = [
  {
    version: 80,
    name: 'memory_facts',
    sql: `
      CREATE TABLE memory_facts (
        seq               bigserial PRIMARY KEY,
        fact_id           text NOT NULL UNIQUE,
        tenant_id         text NOT NULL,
        user_id           text NOT NULL,
        key               text NOT NULL,
        value             text NOT NULL,
        source_kind       text NOT NULL CHECK (source_kind IN ('user', 'tool', 'model')),
        source_run_id     text,
        source_message_id text,
        source_call_id    text,
        source_tool       text,
        trusted           boolean NOT NULL,
        sensitive         boolean NOT NULL,
        created_at        bigint NOT NULL,
        expires_at        bigint,
        supersedes        text,
        superseded_by     text,
        retracted_at      bigint,
        embedding         text,
        -- Space-separated, each prefixed with the owner's scope term.
        search_terms      text NOT NULL,
        search_vector     tsvector GENERATED ALWAYS AS (array_to_tsvector(string_to_array(search_terms, ' '))) STORED
      );
      CREATE INDEX memory_facts_by_owner_key ON memory_facts (tenant_id, user_id, key, seq);
      -- At most one current value per key and owner.
      CREATE UNIQUE INDEX memory_facts_current ON memory_facts (tenant_id, user_id, key)
        WHERE superseded_by IS NULL AND retracted_at IS NULL;
      CREATE INDEX memory_facts_by_expiry ON memory_facts (expires_at) WHERE expires_at IS NOT NULL;
      CREATE INDEX memory_facts_search ON memory_facts USING gin (search_vector);
    `,
  },
];
