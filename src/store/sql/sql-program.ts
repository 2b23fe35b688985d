/**
 * A store's logic, written once for both dialects: a generator that yields
 * each thing it asks of the database (`rows`, `run`, `transaction`) and gets
 * the answer back, whichever port runs it: SQLite answers at once, so the
 * whole program runs synchronously; PostgreSQL answers each step after a
 * round trip. The dialects differ only in the SQL text (`SqlStatement`) and
 * in the port (`SqlPort`).
 *
 * @example
 * function* countPending(runId: string): SqlProgram<number> {
 *   const [row] = yield* rows<{ pending: number }>(countPendingSql, [runId]);
 *   return row?.pending ?? 0;
 * }
 *
 * @module
 */

/** The SQL dialects arbiter speaks. */
export type SqlDialect = 'sqlite' | 'postgres';

/**
 * One statement's SQL text in each dialect, with `$1`, `$2`, … for its
 * parameters in both (the SQLite port binds them as SQLite wants).
 */
export interface SqlStatement {
  readonly sqlite: string;
  readonly postgres: string;
}

/**
 * A statement both dialects write the same way.
 *
 * @example
 * const deleteClaim = sql('DELETE FROM idempotency_claims WHERE tenant_id = $1 AND key = $2');
 */
export function sql(text: string): SqlStatement {
  return { sqlite: text, postgres: text };
}

/**
 * A statement each dialect writes its own way.
 *
 * @example
 * const insertClaim = sqlOf({ sqlite: 'INSERT OR IGNORE INTO …', postgres: 'INSERT INTO … ON CONFLICT DO NOTHING' });
 */
export function sqlOf(texts: { sqlite: string; postgres: string }): SqlStatement {
  return texts;
}

/** A value a statement binds: PostgreSQL's types as the `pg` driver takes them; SQLite's as better-sqlite3 does. */
export type SqlValue = string | number | bigint | boolean | null | Uint8Array | readonly unknown[];

/** One thing a program asks of the database. */
export type SqlStep =
  /** The rows of a statement. */
  | { readonly kind: 'rows'; readonly statement: SqlStatement; readonly values: readonly SqlValue[] }
  /** A write: the number of rows it changed. */
  | { readonly kind: 'run'; readonly statement: SqlStatement; readonly values: readonly SqlValue[] }
  /**
   * A program run in one transaction (SQLite: `BEGIN IMMEDIATE`, so its
   * reads and writes see no other writer; PostgreSQL: READ COMMITTED on one
   * connection, with the row and advisory locks its statements take). It
   * may be run again from the start after a connection lost before its
   * `COMMIT`, so it must do nothing but its statements.
   */
  | { readonly kind: 'transaction'; readonly work: () => SqlProgram<unknown> }
  /** The dialect of the port running the program. */
  | { readonly kind: 'dialect' }
  /** A value from outside the database (a callback's answer), once it settles. */
  | { readonly kind: 'wait'; readonly value: unknown };

/** A store's logic as the port runs it: each step yielded, each answer sent back, the result returned. */
export type SqlProgram<Result> = Generator<SqlStep, Result, unknown>;

/**
 * The rows of a statement.
 *
 * @example
 * const [claim] = yield* rows<ClaimRow>(selectClaim, [tenantId, userId, key]);
 */
export function rows<Row>(statement: SqlStatement, values: readonly SqlValue[] = []): SqlProgram<Row[]> {
  return new OneStep<Row[]>('rows', statement, values, undefined);
}

/**
 * Runs a write; answers how many rows it changed.
 *
 * @example
 * const changed = yield* run(completeClaim, [outcome, now, tenantId, userId, key, owner]);
 */
export function run(statement: SqlStatement, values: readonly SqlValue[] = []): SqlProgram<number> {
  return new OneStep<number>('run', statement, values, undefined);
}

/**
 * Runs `work` in one transaction: committed when it returns, rolled back
 * when it throws (the error rethrown).
 *
 * @example
 * return yield* transaction(function* () { … });
 */
export function transaction<Result>(work: () => SqlProgram<Result>): SqlProgram<Result> {
  return new OneStep<Result>('transaction', undefined, undefined, work);
}

/**
 * A program of one step (`rows`, `run`, `transaction`) as one object: the
 * step itself, the iterator that yields it, and both of that iterator's
 * results. A `yield*` into it hands the port this object and takes the
 * answer back from it, so a statement in a program allocates one object,
 * not a generator, a step and two results. Its fields change as it is
 * stepped (`done`, then `value` from the step to the answer): the ports
 * read the step before they answer it.
 */
class OneStep<Result> implements SqlProgram<Result> {
  readonly kind: 'rows' | 'run' | 'transaction';
  readonly statement: SqlStatement | undefined;
  readonly values: readonly SqlValue[] | undefined;
  readonly work: (() => SqlProgram<unknown>) | undefined;
  done = false;
  /** This step while it waits for its answer; the answer once given. */
  value: SqlStep | Result;
  #asked = false;

  constructor(
    kind: 'rows' | 'run' | 'transaction',
    statement: SqlStatement | undefined,
    values: readonly SqlValue[] | undefined,
    work: (() => SqlProgram<unknown>) | undefined,
  ) {
    this.kind = kind;
    this.statement = statement;
    this.values = values;
    this.work = work;
    this.value = this as unknown as SqlStep;
  }

  next(...[answer]: [] | [unknown]): IteratorResult<SqlStep, Result> {
    if (!this.#asked) {
      this.#asked = true;
      return this as IteratorYieldResult<SqlStep>;
    }
    this.done = true;
    this.value = answer as Result;
    return this as IteratorReturnResult<Result>;
  }

  return(value: Result): IteratorResult<SqlStep, Result> {
    this.#asked = true;
    this.done = true;
    this.value = value;
    return this as IteratorReturnResult<Result>;
  }

  throw(error: unknown): IteratorResult<SqlStep, Result> {
    this.#asked = true;
    this.done = true;
    throw error;
  }

  [Symbol.iterator](): SqlProgram<Result> {
    return this;
  }
}

/**
 * Whether `value` is a program (a generator object, or a program of one step), as a callback may
 * hand one back to run in the caller's transaction.
 *
 * @example
 * if (isSqlProgram(more)) yield* more;
 */
export function isSqlProgram(value: unknown): value is SqlProgram<unknown> {
  return value instanceof OneStep || Object.prototype.toString.call(value) === '[object Generator]';
}

/**
 * The dialect the program runs on, for the few places where the logic
 * itself differs (what a value looks like in a column, not just the SQL).
 *
 * @example
 * const postgres = (yield* dialect()) === 'postgres';
 */
export function* dialect(): SqlProgram<SqlDialect> {
  return (yield { kind: 'dialect' }) as SqlDialect;
}

/**
 * Waits for what a callback answered (an archive written, say) before the
 * program goes on: PostgreSQL's port awaits a promise; SQLite's takes a
 * plain value at once, and refuses a promise, which it could not wait for
 * without leaving its synchronous run.
 *
 * @example
 * yield* wait(archive.write(records));
 */
export function* wait<Value>(value: Value | Promise<Value>): SqlProgram<Value> {
  return (yield { kind: 'wait', value }) as Value;
}
