import type Database from 'better-sqlite3';
import type {
  FactOwner,
  MemoryFact,
  MemoryStore,
  RecalledFact,
  RecallRequest,
  SaveFactRequest,
} from '../../core/memory-store.js';
import {
  currentFactCondition,
  embeddedLimit,
  factRetraction,
  factRowValues,
  forgottenKey,
  type MemoryFactRow,
  memoryFactColumns,
  mergeRecall,
  newFact,
  recallLimit,
  savedFact,
  toEmbeddedFact,
  toMemoryFact,
} from '../memory-rows.js';
import { factSearchText, scopedSearchTerms } from '../memory-scope.js';
import { type PreparedStatements, preparedStatements } from './prepared-statements.js';

const columns = memoryFactColumns;
const current = currentFactCondition('?');
/** A value as SQLite binds it: it has no booleans, only 1 and 0. */
const bindable = <Value>(value: Value | boolean): Value | number =>
  typeof value === 'boolean' ? (value ? 1 : 0) : value;

/**
 * Long-term memory in SQLite (migration 80): every version of a fact is a
 * row; the current one per (tenant, user, key) is unique by a partial
 * index; lexical recall is FTS5 over each fact's search terms, prefixed
 * with the owner's scope (see `scopedSearchTerms`), ranked by BM25, and
 * every query names the tenant and the user, in SQL and in every term.
 *
 * @example
 * const memory = new SqliteMemoryStore({ database: backend.database });
 * await memory.save({ tenantId: 'shop', userId: 'C1001', key: 'city', value: '上海', source: { kind: 'user' }, trusted: true });
 */
export class SqliteMemoryStore implements MemoryStore {
  readonly #database: Database.Database;
  readonly #statement: PreparedStatements;
  readonly #now: () => number;

  constructor({ database, now = Date.now }: { database: Database.Database; now?: () => number }) {
    this.#database = database;
    this.#statement = preparedStatements(database);
    this.#now = now;
  }

  save(request: SaveFactRequest): { fact: MemoryFact; superseded: MemoryFact | undefined } {
    const now = this.#now();
    const created = newFact(request, now);
    return this.#database.transaction(() => {
      const previousRow = this.#statement(
        `SELECT ${columns} FROM memory_facts f
         WHERE f.tenant_id = ? AND f.user_id = ? AND f.key = ? AND f.superseded_by IS NULL AND f.retracted_at IS NULL`,
      ).get(request.tenantId, request.userId, request.key) as MemoryFactRow | undefined;
      const saved = savedFact({ created, previous: previousRow === undefined ? undefined : toMemoryFact(previousRow) });
      const { fact, superseded } = saved;
      if (superseded !== undefined) {
        this.#statement('UPDATE memory_facts SET superseded_by = ? WHERE fact_id = ?').run(
          fact.factId,
          superseded.factId,
        );
      }
      const { lastInsertRowid } = this.#statement(
        `INSERT INTO memory_facts (fact_id, tenant_id, user_id, key, value, source_kind, source_run_id, source_message_id,
           source_call_id, source_tool, trusted, sensitive, created_at, expires_at, supersedes, embedding)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(factRowValues(fact, request.embedding).map(bindable));
      this.#statement('INSERT INTO memory_facts_search (rowid, terms) VALUES (?, ?)').run(
        lastInsertRowid,
        factSearchText(fact),
      );
      return saved;
    })();
  }

  get({ tenantId, userId, factId }: FactOwner & { factId: string }): MemoryFact | undefined {
    const row = this.#statement(
      `SELECT ${columns} FROM memory_facts f WHERE f.fact_id = ? AND f.tenant_id = ? AND f.user_id = ?`,
    ).get(factId, tenantId, userId) as MemoryFactRow | undefined;
    return row === undefined ? undefined : toMemoryFact(row);
  }

  recall({ tenantId, userId, key, query, limit }: RecallRequest): readonly RecalledFact[] {
    const now = this.#now();
    const count = recallLimit(limit);
    const byKey =
      key === undefined
        ? []
        : (
            this.#statement(
              `SELECT ${columns} FROM memory_facts f WHERE f.tenant_id = ? AND f.user_id = ? AND f.key = ? AND ${current}`,
            ).all(tenantId, userId, key, now) as MemoryFactRow[]
          ).map(toMemoryFact);
    const terms = query === undefined ? [] : scopedSearchTerms({ tenantId, userId }, query, { query: true });
    const byText =
      terms.length === 0
        ? []
        : (
            this.#statement(
              `SELECT ${columns} FROM memory_facts_search s JOIN memory_facts f ON f.seq = s.rowid
               WHERE memory_facts_search MATCH ? AND f.tenant_id = ? AND f.user_id = ? AND ${current}
               ORDER BY bm25(memory_facts_search), f.seq DESC LIMIT ?`,
            ).all(terms.map((term) => `"${term}"`).join(' OR '), tenantId, userId, now, count) as MemoryFactRow[]
          ).map(toMemoryFact);
    return mergeRecall({ byKey, byText, limit: count });
  }

  embedded({ tenantId, userId, limit }: FactOwner & { limit: number }): { fact: MemoryFact; embedding: number[] }[] {
    const rows = this.#statement(
      `SELECT ${columns}, f.embedding FROM memory_facts f
       WHERE f.tenant_id = ? AND f.user_id = ? AND f.embedding IS NOT NULL AND ${current}
       ORDER BY f.seq DESC LIMIT ?`,
    ).all(tenantId, userId, this.#now(), embeddedLimit(limit)) as (MemoryFactRow & { embedding: string })[];
    return rows.map(toEmbeddedFact);
  }

  list({ tenantId, userId, history = false }: FactOwner & { history?: boolean }): MemoryFact[] {
    const rows = this.#statement(
      `SELECT ${columns} FROM memory_facts f WHERE f.tenant_id = ? AND f.user_id = ?
       ${history ? '' : `AND ${current}`} ORDER BY f.seq`,
    ).all(tenantId, userId, ...(history ? [] : [this.#now()])) as MemoryFactRow[];
    return rows.map(toMemoryFact);
  }

  retract({ tenantId, userId, factId }: FactOwner & { factId: string }): boolean {
    return this.#database.transaction(() => {
      const retraction = factRetraction(this.get({ tenantId, userId, factId }));
      if (retraction === undefined) return false;
      this.#statement('UPDATE memory_facts SET retracted_at = ? WHERE fact_id = ?').run(this.#now(), factId);
      if (retraction.restores !== undefined) {
        this.#statement(
          'UPDATE memory_facts SET superseded_by = NULL WHERE fact_id = ? AND tenant_id = ? AND user_id = ? AND retracted_at IS NULL',
        ).run(retraction.restores, tenantId, userId);
      }
      return true;
    })();
  }

  forget({ tenantId, userId, key, factId }: FactOwner & { key?: string; factId?: string }): number {
    return this.#database.transaction(() => {
      const found = factId === undefined ? undefined : this.get({ tenantId, userId, factId });
      const forgotten = forgottenKey({ key, factId, found });
      if (forgotten === undefined) return 0;
      const filter = forgotten.key === undefined ? '' : 'AND key = ?';
      const values = [tenantId, userId, ...(forgotten.key === undefined ? [] : [forgotten.key])];
      this.#statement(
        `DELETE FROM memory_facts_search WHERE rowid IN
           (SELECT seq FROM memory_facts WHERE tenant_id = ? AND user_id = ? ${filter})`,
      ).run(...values);
      return this.#statement(`DELETE FROM memory_facts WHERE tenant_id = ? AND user_id = ? ${filter}`).run(...values)
        .changes;
    })();
  }

  purgeExpired(): number {
    const now = this.#now();
    return this.#database.transaction(() => {
      this.#statement(
        'DELETE FROM memory_facts_search WHERE rowid IN (SELECT seq FROM memory_facts WHERE expires_at <= ?)',
      ).run(now);
      // A superseded version pointing at a purged one keeps its audit trail; the link just dangles.
      return this.#statement('DELETE FROM memory_facts WHERE expires_at <= ?').run(now).changes;
    })();
  }

  /** The tenants a user has facts in, for an operator who names only the user. */
  tenantsOfUser({ userId }: { userId: string }): readonly string[] {
    return (
      this.#statement('SELECT DISTINCT tenant_id FROM memory_facts WHERE user_id = ? ORDER BY tenant_id').all(
        userId,
      ) as { tenant_id: string }[]
    ).map((row) => row.tenant_id);
  }
}
