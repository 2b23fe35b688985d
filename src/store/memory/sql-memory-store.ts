import type { FactOwner, MemoryFact, RecalledFact, RecallRequest, SaveFactRequest } from '../../core/memory-store.js';
import {
  embeddedLimit,
  factRetraction,
  forgottenKey,
  mergeRecall,
  newFact,
  recallLimit,
  savedFact,
} from '../../memory/fact-rules.js';
import type { MemoryAdministration } from '../backend.js';
import { factRowValues, type MemoryFactRow, toEmbeddedFact, toMemoryFact } from '../memory-rows.js';
import { factSearchText, scopedSearchTerms } from '../memory-scope.js';
import type { Answer, SqlMode, SqlPort } from '../sql/sql-port.js';
import { rows, run, type SqlProgram, type SqlStatement, transaction } from '../sql/sql-program.js';
import {
  deleteExpired,
  deleteKey,
  deleteOwner,
  indexFactTerms,
  insertFact,
  lockFact,
  lockFactKey,
  markRetracted,
  markSuperseded,
  restorePrevious,
  selectByKey,
  selectByText,
  selectCurrent,
  selectCurrentOfKey,
  selectEmbedded,
  selectFact,
  selectHistory,
  selectTenantsOfUser,
  textQuery,
  unindexExpired,
  unindexKey,
  unindexOwner,
} from './memory-statements.js';

/** What a save answers: the new fact, and the version it superseded. */
type Saved = { fact: MemoryFact; superseded: MemoryFact | undefined };

/**
 * Long-term memory on either SQL dialect (migration 80): every version of
 * a fact is a row, the current one per (tenant, user, key) unique by a
 * partial index; lexical recall over each fact's search terms, prefixed
 * with the owner's scope (`scopedSearchTerms`); every query names the
 * tenant and the user, in SQL and in every term. What a fact may hold and
 * what a save, a retraction or a forget changes are memory's rules
 * (`memory/fact-rules.ts`); this class reads, asks them, and writes. Where
 * the dialects keep their search index and take their locks differently,
 * see `memory-statements.ts`. On SQLite every method answers synchronously.
 *
 * @example
 * const memory = new SqlMemoryStore({ port: new SqlitePort(database) });
 * memory.save({ tenantId: 'shop', userId: 'C1001', key: 'city', value: '上海', source: { kind: 'user' }, trusted: true });
 */
export class SqlMemoryStore<Mode extends SqlMode> implements MemoryAdministration {
  readonly #port: SqlPort<Mode>;
  readonly #now: () => number;

  constructor({ port, now = Date.now }: { port: SqlPort<Mode>; now?: () => number }) {
    this.#port = port;
    this.#now = now;
  }

  /** Stores a fact; the key's current version, if any, is superseded by it. Throws `MemoryFactError` for an invalid fact. */
  save(request: SaveFactRequest): Answer<Mode, Saved> {
    return this.#port.run(this.#save(request));
  }

  /** One fact of this owner by id, whatever its state; undefined when it is another's or none. */
  get({ tenantId, userId, factId }: FactOwner & { factId: string }): Answer<Mode, MemoryFact | undefined> {
    return this.#port.run(readFact(selectFact, { tenantId, userId, factId }));
  }

  /** The current facts of `key` first, then the best text matches of `query`, at most `limit`. */
  recall(request: RecallRequest): Answer<Mode, readonly RecalledFact[]> {
    return this.#port.run(this.#recall(request));
  }

  /** The newest current facts of an owner that have an embedding, with it, at most `limit`. */
  embedded({
    tenantId,
    userId,
    limit,
  }: FactOwner & { limit: number }): Answer<Mode, { fact: MemoryFact; embedding: number[] }[]> {
    const values = [tenantId, userId, this.#now(), embeddedLimit(limit)];
    return this.#port.run(readRows(selectEmbedded, values, toEmbeddedFact));
  }

  /** An owner's current facts, oldest first; with `history`, every version. */
  list({ tenantId, userId, history = false }: FactOwner & { history?: boolean }): Answer<Mode, MemoryFact[]> {
    return this.#port.run(
      history
        ? readRows(selectHistory, [tenantId, userId], toMemoryFact)
        : readRows(selectCurrent, [tenantId, userId, this.#now()], toMemoryFact),
    );
  }

  /** Undoes a save: the fact is never recalled again, and the version it superseded is current again. */
  retract(request: FactOwner & { factId: string }): Answer<Mode, boolean> {
    return this.#port.run(transaction(() => this.#retract(request)));
  }

  /** Deletes a fact's every version (by `factId`), a key's, or all an owner's facts; answers how many rows went. */
  forget(request: FactOwner & { key?: string; factId?: string }): Answer<Mode, number> {
    return this.#port.run(transaction(() => this.#forget(request)));
  }

  /** Deletes every fact past its expiry; answers how many. */
  purgeExpired(): Answer<Mode, number> {
    return this.#port.run(transaction(() => this.#purgeExpired()));
  }

  /** The tenants a user has facts in, for an operator who names only the user. */
  tenantsOfUser({ userId }: { userId: string }): Answer<Mode, readonly string[]> {
    return this.#port.run(readRows(selectTenantsOfUser, [userId], (row: { tenant_id: string }) => row.tenant_id));
  }

  *#save(request: SaveFactRequest): SqlProgram<Saved> {
    const created = newFact(request, this.#now());
    return yield* transaction(() => this.#supersede(request, created));
  }

  /** Inside the save's transaction: the key's current version superseded by `created`, written and indexed. */
  *#supersede(request: SaveFactRequest, created: MemoryFact): SqlProgram<Saved> {
    const { tenantId, userId, key } = request;
    if (this.#port.dialect === 'postgres') yield* run(lockFactKey, [JSON.stringify([tenantId, userId, key])]);
    const [previous] = yield* rows<MemoryFactRow>(selectCurrentOfKey, [tenantId, userId, key]);
    const saved = savedFact({ created, previous: previous === undefined ? undefined : toMemoryFact(previous) });
    const { fact, superseded } = saved;
    if (superseded !== undefined) yield* run(markSuperseded, [fact.factId, superseded.factId]);
    const terms = factSearchText(fact);
    yield* run(insertFact, [...factRowValues(fact, request.embedding), terms]);
    if (this.#port.dialect === 'sqlite') yield* run(indexFactTerms, [terms]);
    return saved;
  }

  *#recall({ tenantId, userId, key, query, limit }: RecallRequest): SqlProgram<readonly RecalledFact[]> {
    const now = this.#now();
    const count = recallLimit(limit);
    const byKey = key === undefined ? [] : yield* readRows(selectByKey, [tenantId, userId, key, now], toMemoryFact);
    const terms = query === undefined ? [] : scopedSearchTerms({ tenantId, userId }, query, { query: true });
    const byText =
      terms.length === 0
        ? []
        : yield* readRows(
            selectByText,
            [tenantId, userId, textQuery(this.#port.dialect, terms), now, count],
            toMemoryFact,
          );
    return mergeRecall({ byKey, byText, limit: count });
  }

  *#retract({ tenantId, userId, factId }: FactOwner & { factId: string }): SqlProgram<boolean> {
    const found = yield* readFact(lockFact, { tenantId, userId, factId });
    const retraction = factRetraction(found);
    if (found === undefined || retraction === undefined) return false;
    if (this.#port.dialect === 'postgres') yield* run(lockFactKey, [JSON.stringify([tenantId, userId, found.key])]);
    yield* run(markRetracted, [this.#now(), factId]);
    if (retraction.restores !== undefined) yield* run(restorePrevious, [retraction.restores, tenantId, userId]);
    return true;
  }

  *#forget({ tenantId, userId, key, factId }: FactOwner & { key?: string; factId?: string }): SqlProgram<number> {
    const found = factId === undefined ? undefined : yield* readFact(selectFact, { tenantId, userId, factId });
    const forgotten = forgottenKey({ key, factId, found });
    if (forgotten === undefined) return 0;
    const [unindex, remove, values] =
      forgotten.key === undefined
        ? [unindexOwner, deleteOwner, [tenantId, userId]]
        : [unindexKey, deleteKey, [tenantId, userId, forgotten.key]];
    if (this.#port.dialect === 'sqlite') yield* run(unindex, values);
    return yield* run(remove, values);
  }

  *#purgeExpired(): SqlProgram<number> {
    const now = this.#now();
    if (this.#port.dialect === 'sqlite') yield* run(unindexExpired, [now]);
    // A superseded version pointing at a purged one keeps its audit trail; the link just dangles.
    return yield* run(deleteExpired, [now]);
  }
}

function* readFact(
  statement: SqlStatement,
  { tenantId, userId, factId }: FactOwner & { factId: string },
): SqlProgram<MemoryFact | undefined> {
  const [row] = yield* rows<MemoryFactRow>(statement, [factId, tenantId, userId]);
  return row === undefined ? undefined : toMemoryFact(row);
}

function* readRows<Row, Result>(
  statement: SqlStatement,
  values: readonly (string | number)[],
  toResult: (row: Row) => Result,
): SqlProgram<Result[]> {
  return (yield* rows<Row>(statement, values)).map(toResult);
}
