import type Database from 'better-sqlite3';
import { type PreparedStatements, preparedStatements } from '../sqlite/prepared-statements.js';
import { bindPositional } from './bind-positional.js';
import type { SqlPort } from './sql-port.js';
import type { SqlProgram, SqlStep } from './sql-program.js';

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

  #answer(step: SqlStep): unknown {
    switch (step.kind) {
      case 'rows': {
        const { text, values } = bindPositional(step.statement.sqlite, step.values.map(sqliteValue));
        return this.#statement(text).all(...values);
      }
      case 'run': {
        const { text, values } = bindPositional(step.statement.sqlite, step.values.map(sqliteValue));
        return this.#statement(text).run(...values).changes;
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
