import type Database from 'better-sqlite3';
import { type PreparedStatements, preparedStatements } from '../sqlite/prepared-statements.js';
import { bindPositional, positionalBinding } from './bind-positional.js';
import type { SqlPort } from './sql-port.js';
import type { SqlProgram, SqlStatement, SqlStep, SqlValue } from './sql-program.js';

/** A statement as this connection runs it: prepared, and whether its `$n` come in order `$1`, `$2`, … */
interface Prepared {
  readonly statement: Database.Statement;
  /** The values go as given: `$1` … `$n`, each once, in order, and exactly `n` given. */
  readonly inOrder: number | undefined;
  readonly text: string;
}

/**
 * The SQLite side of the dialect port: runs a program synchronously on one
 * better-sqlite3 connection, each statement prepared once per connection
 * and text (`preparedStatements`); a `transaction` step is `BEGIN IMMEDIATE`
 * … `COMMIT` around the nested program (a savepoint when one is open already).
 *
 * @example
 * const port = new SqlitePort(database);
 * const count = port.run(countPending(runId)); // a number, not a promise
 */
export class SqlitePort implements SqlPort<'sync'> {
  readonly dialect = 'sqlite';
  readonly database: Database.Database;
  readonly #statement: PreparedStatements;
  /** By statement object: the hot path finds its prepared statement without hashing the text. */
  readonly #prepared = new WeakMap<SqlStatement, Prepared>();

  constructor(database: Database.Database) {
    this.database = database;
    this.#statement = preparedStatements(database);
  }

  run<Result>(program: SqlProgram<Result>): Result {
    let answer: unknown;
    for (;;) {
      const step = program.next(answer);
      if (step.done === true) return step.value;
      answer = this.#answer(step.value);
    }
  }

  /** The prepared statement and the values in the order its `?` take them, booleans as 0 and 1. */
  #bound(sql: SqlStatement, given: readonly SqlValue[]): { statement: Database.Statement; values: unknown[] } {
    let prepared = this.#prepared.get(sql);
    if (prepared === undefined) {
      const { text, order } = positionalBinding(sql.sqlite);
      prepared = {
        statement: this.#statement(text),
        inOrder: order.every((position, index) => position === index + 1) ? order.length : undefined,
        text: sql.sqlite,
      };
      this.#prepared.set(sql, prepared);
    }
    if (prepared.inOrder === given.length) {
      return { statement: prepared.statement, values: given.map(sqliteValue) };
    }
    return { statement: prepared.statement, values: bindPositional(prepared.text, given).values.map(sqliteValue) };
  }

  #answer(step: SqlStep): unknown {
    switch (step.kind) {
      case 'rows': {
        const { statement, values } = this.#bound(step.statement, step.values);
        return statement.all(...values);
      }
      case 'run': {
        const { statement, values } = this.#bound(step.statement, step.values);
        return statement.run(...values).changes;
      }
      case 'transaction': {
        const work = () => this.run(step.work());
        const wrapped = this.database.transaction(work);
        return this.database.inTransaction ? wrapped() : wrapped.immediate();
      }
      case 'dialect':
        return this.dialect;
      case 'wait':
        if (step.value instanceof Promise) {
          step.value.catch(() => {});
          throw new TypeError('the SQLite port runs a program synchronously: it cannot wait for a promise');
        }
        return step.value;
    }
  }
}

/** What SQLite stores for a value: booleans as 0 and 1 (it has no boolean). */
function sqliteValue(value: unknown): unknown {
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}
