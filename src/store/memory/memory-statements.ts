/**
 * The SQL of `SqlMemoryStore`, in both dialects. Where they differ:
 *
 * - Lexical recall. SQLite keeps each fact's search terms in an FTS5 table
 *   of its own (`memory_facts_search`, by the fact's `seq`), written and
 *   deleted beside the fact (the statements marked SQLite only), and ranks
 *   by BM25; PostgreSQL keeps them in the fact's row (`search_terms`, a
 *   GIN-indexed generated `tsvector`) and ranks by `ts_rank`.
 * - Locks. PostgreSQL serialises the writes of one key with a
 *   transaction-scoped advisory lock (PostgreSQL only) and locks the row a
 *   retraction reads; SQLite's `BEGIN IMMEDIATE` already keeps every other
 *   writer out.
 *
 * @module
 */
import { type SqlDialect, sql, sqlOf } from '../sql/sql-program.js';

/** The columns of `memory_facts` that make a `MemoryFactRow`, from the table as `f`. */
const columns = `f.fact_id, f.tenant_id, f.user_id, f.key, f.value, f.source_kind, f.source_run_id, f.source_message_id,
  f.source_call_id, f.source_tool, f.trusted, f.sensitive, f.created_at, f.expires_at, f.supersedes, f.superseded_by,
  f.retracted_at`;

/** That a fact (the table as `f`) is current at `$n`: neither superseded nor retracted nor expired. */
function currentAt(parameter: number): string {
  return `f.superseded_by IS NULL AND f.retracted_at IS NULL AND (f.expires_at IS NULL OR f.expires_at > $${parameter})`;
}

/** PostgreSQL only: serialises the writes of one key (`$1`: the owner and key as JSON), until the transaction ends. */
export const lockFactKey = sql('SELECT pg_advisory_xact_lock(hashtextextended($1, 80))');
/** The current version of a key (`$1` tenant, `$2` user, `$3` key), expired or not. */
export const selectCurrentOfKey = sql(
  `SELECT ${columns} FROM memory_facts f
   WHERE f.tenant_id = $1 AND f.user_id = $2 AND f.key = $3 AND f.superseded_by IS NULL AND f.retracted_at IS NULL`,
);
/** The version `$2` superseded by `$1`. */
export const markSuperseded = sql('UPDATE memory_facts SET superseded_by = $1 WHERE fact_id = $2');
/**
 * A new fact: `$1`…`$16` the values of `factRowValues`, `$17` its search
 * terms (PostgreSQL keeps them in the row; SQLite indexes them next, `indexFactTerms`).
 */
export const insertFact = sqlOf({
  sqlite: `INSERT INTO memory_facts (fact_id, tenant_id, user_id, key, value, source_kind, source_run_id,
     source_message_id, source_call_id, source_tool, trusted, sensitive, created_at, expires_at, supersedes, embedding)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
  postgres: `INSERT INTO memory_facts (fact_id, tenant_id, user_id, key, value, source_kind, source_run_id,
     source_message_id, source_call_id, source_tool, trusted, sensitive, created_at, expires_at, supersedes, embedding,
     search_terms)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
});
/** SQLite only: the search terms (`$1`) of the fact just inserted, in its full-text index. */
export const indexFactTerms = sql('INSERT INTO memory_facts_search (rowid, terms) VALUES (last_insert_rowid(), $1)');

/** One fact of an owner (`$1` fact, `$2` tenant, `$3` user). */
export const selectFact = sql(
  `SELECT ${columns} FROM memory_facts f WHERE f.fact_id = $1 AND f.tenant_id = $2 AND f.user_id = $3`,
);
/** One fact of an owner, as `selectFact`, locked for its retraction. */
export const lockFact = sqlOf({ sqlite: selectFact.sqlite, postgres: `${selectFact.postgres} FOR UPDATE` });
/** The current facts of a key (`$1` tenant, `$2` user, `$3` key, `$4` now). */
export const selectByKey = sql(
  `SELECT ${columns} FROM memory_facts f WHERE f.tenant_id = $1 AND f.user_id = $2 AND f.key = $3 AND ${currentAt(4)}`,
);
/** The current facts matching a text query (`$3`, see `textQuery`), best first (`$1` tenant, `$2` user, `$4` now, `$5` limit). */
export const selectByText = sqlOf({
  sqlite: `SELECT ${columns} FROM memory_facts_search s JOIN memory_facts f ON f.seq = s.rowid
   WHERE memory_facts_search MATCH $3 AND f.tenant_id = $1 AND f.user_id = $2 AND ${currentAt(4)}
   ORDER BY bm25(memory_facts_search), f.seq DESC LIMIT $5`,
  postgres: `SELECT ${columns} FROM memory_facts f, CAST($3 AS tsquery) AS query
   WHERE f.search_vector @@ query AND f.tenant_id = $1 AND f.user_id = $2 AND ${currentAt(4)}
   ORDER BY ts_rank(f.search_vector, query) DESC, f.seq DESC LIMIT $5`,
});
/** The newest current facts with an embedding (`$1` tenant, `$2` user, `$3` now, `$4` limit). */
export const selectEmbedded = sql(
  `SELECT ${columns}, f.embedding FROM memory_facts f
   WHERE f.tenant_id = $1 AND f.user_id = $2 AND f.embedding IS NOT NULL AND ${currentAt(3)}
   ORDER BY f.seq DESC LIMIT $4`,
);
/** An owner's current facts, oldest first (`$1` tenant, `$2` user, `$3` now). */
export const selectCurrent = sql(
  `SELECT ${columns} FROM memory_facts f WHERE f.tenant_id = $1 AND f.user_id = $2 AND ${currentAt(3)} ORDER BY f.seq`,
);
/** Every version of an owner's facts, oldest first (`$1` tenant, `$2` user). */
export const selectHistory = sql(
  `SELECT ${columns} FROM memory_facts f WHERE f.tenant_id = $1 AND f.user_id = $2 ORDER BY f.seq`,
);
/** Fact `$2` retracted at `$1`. */
export const markRetracted = sql('UPDATE memory_facts SET retracted_at = $1 WHERE fact_id = $2');
/** Fact `$1` of an owner (`$2` tenant, `$3` user) current again, unless retracted itself. */
export const restorePrevious = sql(
  `UPDATE memory_facts SET superseded_by = NULL
   WHERE fact_id = $1 AND tenant_id = $2 AND user_id = $3 AND retracted_at IS NULL`,
);
/** SQLite only: the search terms of every fact of an owner (`$1` tenant, `$2` user) out of the index. */
export const unindexOwner = sql(
  'DELETE FROM memory_facts_search WHERE rowid IN (SELECT seq FROM memory_facts WHERE tenant_id = $1 AND user_id = $2)',
);
/** SQLite only: the search terms of every version of a key (`$3`) out of the index. */
export const unindexKey = sql(
  `DELETE FROM memory_facts_search WHERE rowid IN
     (SELECT seq FROM memory_facts WHERE tenant_id = $1 AND user_id = $2 AND key = $3)`,
);
/** Every fact of an owner (`$1` tenant, `$2` user). */
export const deleteOwner = sql('DELETE FROM memory_facts WHERE tenant_id = $1 AND user_id = $2');
/** Every version of a key (`$1` tenant, `$2` user, `$3` key). */
export const deleteKey = sql('DELETE FROM memory_facts WHERE tenant_id = $1 AND user_id = $2 AND key = $3');
/** SQLite only: the search terms of every fact expired at `$1` out of the index. */
export const unindexExpired = sql(
  'DELETE FROM memory_facts_search WHERE rowid IN (SELECT seq FROM memory_facts WHERE expires_at <= $1)',
);
/** Every fact expired at `$1`. */
export const deleteExpired = sql('DELETE FROM memory_facts WHERE expires_at <= $1');
/** The tenants a user (`$1`) has facts in. */
export const selectTenantsOfUser = sql(
  'SELECT DISTINCT tenant_id FROM memory_facts WHERE user_id = $1 ORDER BY tenant_id',
);

/**
 * The text query `selectByText` binds for a recall's scoped search terms,
 * any of them matching: an FTS5 query of quoted terms for SQLite, a
 * `tsquery` of quoted lexemes for PostgreSQL (letters, digits, Chinese:
 * nothing to escape in either).
 *
 * @example
 * textQuery('postgres', ['city', '上海']); // "'city' | '上海'"
 */
export function textQuery(dialect: SqlDialect, terms: readonly string[]): string {
  return dialect === 'sqlite'
    ? terms.map((term) => `"${term}"`).join(' OR ')
    : terms.map((term) => `'${term}'`).join(' | ');
}
