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
import { namedStatement } from './named-statement.js';
import type { PostgresDatabase } from './postgres-database.js';

const columns = memoryFactColumns;
const currentAt = (parameter: number) => currentFactCondition(`$${parameter}`);

const lockKey = namedStatement(`SELECT pg_advisory_xact_lock(hashtextextended($1, 80))`);
const selectCurrentOfKey = namedStatement(
  `SELECT ${columns} FROM memory_facts f
   WHERE f.tenant_id = $1 AND f.user_id = $2 AND f.key = $3 AND f.superseded_by IS NULL AND f.retracted_at IS NULL`,
);
const markSuperseded = namedStatement('UPDATE memory_facts SET superseded_by = $1 WHERE fact_id = $2');
const insertFact = namedStatement(
  `INSERT INTO memory_facts (fact_id, tenant_id, user_id, key, value, source_kind, source_run_id, source_message_id,
     source_call_id, source_tool, trusted, sensitive, created_at, expires_at, supersedes, embedding, search_terms)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
);
const selectTenantsOfUser = namedStatement(
  'SELECT DISTINCT tenant_id FROM memory_facts WHERE user_id = $1 ORDER BY tenant_id',
);
const selectFact = namedStatement(
  `SELECT ${columns} FROM memory_facts f WHERE f.fact_id = $1 AND f.tenant_id = $2 AND f.user_id = $3`,
);
const selectByKey = namedStatement(
  `SELECT ${columns} FROM memory_facts f WHERE f.tenant_id = $1 AND f.user_id = $2 AND f.key = $3 AND ${currentAt(4)}`,
);
const selectByText = namedStatement(
  `SELECT ${columns} FROM memory_facts f, CAST($3 AS tsquery) AS query
   WHERE f.search_vector @@ query AND f.tenant_id = $1 AND f.user_id = $2 AND ${currentAt(4)}
   ORDER BY ts_rank(f.search_vector, query) DESC, f.seq DESC LIMIT $5`,
);
const selectEmbedded = namedStatement(
  `SELECT ${columns}, f.embedding FROM memory_facts f
   WHERE f.tenant_id = $1 AND f.user_id = $2 AND f.embedding IS NOT NULL AND ${currentAt(3)}
   ORDER BY f.seq DESC LIMIT $4`,
);
const selectCurrent = namedStatement(
  `SELECT ${columns} FROM memory_facts f WHERE f.tenant_id = $1 AND f.user_id = $2 AND ${currentAt(3)} ORDER BY f.seq`,
);
const selectHistory = namedStatement(
  `SELECT ${columns} FROM memory_facts f WHERE f.tenant_id = $1 AND f.user_id = $2 ORDER BY f.seq`,
);
const markRetracted = namedStatement('UPDATE memory_facts SET retracted_at = $1 WHERE fact_id = $2');
const restorePrevious = namedStatement(
  `UPDATE memory_facts SET superseded_by = NULL
   WHERE fact_id = $1 AND tenant_id = $2 AND user_id = $3 AND retracted_at IS NULL`,
);
const deleteOwner = namedStatement('DELETE FROM memory_facts WHERE tenant_id = $1 AND user_id = $2');
const deleteKey = namedStatement('DELETE FROM memory_facts WHERE tenant_id = $1 AND user_id = $2 AND key = $3');
const deleteExpired = namedStatement('DELETE FROM memory_facts WHERE expires_at <= $1');

/**
 * Long-term memory in PostgreSQL (migration 80), with the behaviour of
 * `SqliteMemoryStore`: every version of a fact is a row, the current one
 * per (tenant, user, key) unique by a partial index, saves of one key
 * serialised by a transaction-scoped advisory lock (on any node), and
 * lexical recall through a GIN-indexed `tsvector` of the same scoped
 * search terms, ranked by `ts_rank`. Every query names the tenant and the
 * user, in SQL and in every term.
 *
 * @example
 * const { memory } = await openPostgresBackend({ connectionString });
 * await memory.recall({ tenantId: 'shop', userId: 'C1001', query: 'city' });
 */
export class PostgresMemoryStore implements MemoryStore {
  readonly #database: PostgresDatabase;
  readonly #now: () => number;

  constructor({ database, now = Date.now }: { database: PostgresDatabase; now?: () => number }) {
    this.#database = database;
    this.#now = now;
  }

  async save(request: SaveFactRequest): Promise<{ fact: MemoryFact; superseded: MemoryFact | undefined }> {
    const created = newFact(request, this.#now());
    return this.#database.transaction(async (query) => {
      await query(lockKey, [JSON.stringify([request.tenantId, request.userId, request.key])]);
      const previousRow = (
        await query<MemoryFactRow>(selectCurrentOfKey, [request.tenantId, request.userId, request.key])
      ).rows[0];
      const saved = savedFact({ created, previous: previousRow === undefined ? undefined : toMemoryFact(previousRow) });
      const { fact, superseded } = saved;
      if (superseded !== undefined) await query(markSuperseded, [fact.factId, superseded.factId]);
      await query(insertFact, [...factRowValues(fact, request.embedding), factSearchText(fact)]);
      return saved;
    });
  }

  async get({ tenantId, userId, factId }: FactOwner & { factId: string }): Promise<MemoryFact | undefined> {
    const row = (await this.#database.query<MemoryFactRow>(selectFact, [factId, tenantId, userId])).rows[0];
    return row === undefined ? undefined : toMemoryFact(row);
  }

  async recall({ tenantId, userId, key, query, limit }: RecallRequest): Promise<readonly RecalledFact[]> {
    const now = this.#now();
    const count = recallLimit(limit);
    const byKey =
      key === undefined
        ? []
        : (await this.#database.query<MemoryFactRow>(selectByKey, [tenantId, userId, key, now])).rows.map(toMemoryFact);
    const terms = query === undefined ? [] : scopedSearchTerms({ tenantId, userId }, query, { query: true });
    // Each term quoted as a lexeme (letters, digits, Chinese: nothing to escape), taken as it is by `::tsquery`.
    const tsquery = terms.map((term) => `'${term}'`).join(' | ');
    const byText =
      terms.length === 0
        ? []
        : (await this.#database.query<MemoryFactRow>(selectByText, [tenantId, userId, tsquery, now, count])).rows.map(
            toMemoryFact,
          );
    return mergeRecall({ byKey, byText, limit: count });
  }

  async embedded({
    tenantId,
    userId,
    limit,
  }: FactOwner & { limit: number }): Promise<{ fact: MemoryFact; embedding: number[] }[]> {
    const { rows } = await this.#database.query<MemoryFactRow & { embedding: string }>(selectEmbedded, [
      tenantId,
      userId,
      this.#now(),
      embeddedLimit(limit),
    ]);
    return rows.map(toEmbeddedFact);
  }

  async list({ tenantId, userId, history = false }: FactOwner & { history?: boolean }): Promise<MemoryFact[]> {
    const { rows } = history
      ? await this.#database.query<MemoryFactRow>(selectHistory, [tenantId, userId])
      : await this.#database.query<MemoryFactRow>(selectCurrent, [tenantId, userId, this.#now()]);
    return rows.map(toMemoryFact);
  }

  async retract({ tenantId, userId, factId }: FactOwner & { factId: string }): Promise<boolean> {
    return this.#database.transaction(async (query) => {
      const row = (await query<MemoryFactRow>(`${selectFact.text} FOR UPDATE`, [factId, tenantId, userId])).rows[0];
      const retraction = factRetraction(row === undefined ? undefined : toMemoryFact(row));
      if (row === undefined || retraction === undefined) return false;
      await query(lockKey, [JSON.stringify([tenantId, userId, row.key])]);
      await query(markRetracted, [this.#now(), factId]);
      if (retraction.restores !== undefined) await query(restorePrevious, [retraction.restores, tenantId, userId]);
      return true;
    });
  }

  async forget({ tenantId, userId, key, factId }: FactOwner & { key?: string; factId?: string }): Promise<number> {
    const found = factId === undefined ? undefined : await this.get({ tenantId, userId, factId });
    const forgotten = forgottenKey({ key, factId, found });
    if (forgotten === undefined) return 0;
    const result =
      forgotten.key === undefined
        ? await this.#database.query(deleteOwner, [tenantId, userId])
        : await this.#database.query(deleteKey, [tenantId, userId, forgotten.key]);
    return result.rowCount ?? 0;
  }

  async purgeExpired(): Promise<number> {
    return (await this.#database.query(deleteExpired, [this.#now()])).rowCount ?? 0;
  }

  /** The tenants a user has facts in, for an operator who names only the user. */
  async tenantsOfUser({ userId }: { userId: string }): Promise<readonly string[]> {
    return (await this.#database.query<{ tenant_id: string }>(selectTenantsOfUser, [userId])).rows.map(
      (row) => row.tenant_id,
    );
  }
}
