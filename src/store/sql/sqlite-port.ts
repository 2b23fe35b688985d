import type Database from 'better-sqlite3';
import { type PreparedStatements, preparedStatements } from '../sqlite/prepared-statements.js';
import { positionalBinding } from './bind-positional.js';
import type { SqlPort } from './sql-port.js';
import type { SqlProgram, SqlStatement, SqlStep, SqlValue } from './sql-program.js';

/** A statement as this connection runs it: prepared once, with how its values are bound. */
interface Prepared {
  readonly statement: Database.Statement;
  /** The `$n` each `?` takes, in order. */
  readonly order: readonly number[];
  /** Whether `order` is `$1` … `$n`, each once: then values given exactly so are bound as they are. */
  readonly inOrder: boolean;
  /** How many values the statement binds (`$n`'s highest `n`). */
  readonly count: number;
  readonly text: string;
}

/** Runs a program to its end in one transaction: built once per port, called with the program's work. */
type RunInTransaction = Database.Transaction<(work: () => SqlProgram<unknown>) => unknown>;

/**
 * The SQLite side of the dialect port: runs a program synchronously on one
 * better-sqlite3 connection, each statement prepared once per connection
 * and text (`preparedStatements`); a `transaction` step is `BEGIN IMMEDIATE`
 * … `COMMIT` around the nested program (a savepoint when one is open already).
 *
 * What a step costs here is what the statement costs: the prepared form is
 * found by the statement object, the values are bound as given when they
 * come in order (no copy unless one is a boolean), the transaction wrapper
 * is built once, and `rows` and `execute` run one statement without a
 * program around it.
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
  readonly #transaction: RunInTransaction;

  constructor(database: Database.Database) {
    this.database = database;
    this.#statement = preparedStatements(database);
    this.#transaction = database.transaction((work: () => SqlProgram<unknown>) => this.run(work()));
  }

  run<Result>(program: SqlProgram<Result>): Result {
    let answer: unknown;
    for (;;) {
      const step = program.next(answer);
      if (step.done === true) return step.value;
      answer = this.#answer(step.value);
    }
  }

  /**
   * The rows of one statement, at once: `port.run(rows(statement, values))`
   * without the program.
   *
   * @example
   * const found = port.rows<ToolResultRow>(statements.toolResults, [runId]);
   */
  rows<Row>(statement: SqlStatement, values: readonly SqlValue[] = []): Row[] {
    const prepared = this.#preparedOf(statement);
    return prepared.statement.all(this.#bound(prepared, values)) as Row[];
  }

  /**
   * Runs one write, at once; answers how many rows it changed.
   *
   * @example
   * port.execute(statements.recordToolResult, values);
   */
  execute(statement: SqlStatement, values: readonly SqlValue[] = []): number {
    const prepared = this.#preparedOf(statement);
    return prepared.statement.run(this.#bound(prepared, values)).changes;
  }

  #preparedOf(sql: SqlStatement): Prepared {
    let prepared = this.#prepared.get(sql);
    if (prepared === undefined) {
      const { text, order } = positionalBinding(sql.sqlite);
      prepared = {
        statement: this.#statement(text),
        order,
        inOrder: order.every((position, index) => position === index + 1),
        count: order.length === 0 ? 0 : Math.max(...order),
        text: sql.sqlite,
      };
      this.#prepared.set(sql, prepared);
    }
    return prepared;
  }

  /** The values in the order the statement's `?` take them, booleans as 0 and 1: `given` itself when it can be. */
  #bound(prepared: Prepared, given: readonly SqlValue[]): readonly unknown[] {
    if (prepared.inOrder && given.length === prepared.count) {
      for (let index = 0; index < given.length; index += 1) {
        if (typeof given[index] === 'boolean') return given.map(sqliteValue);
      }
      return given;
    }
    if (prepared.count > given.length) {
      throw new RangeError(
        `the statement binds $${prepared.count}, and ${given.length} values were given: ${prepared.text.slice(0, 80)}`,
      );
    }
    return prepared.order.map((position) => sqliteValue(given[position - 1]));
  }

  #answer(step: SqlStep): unknown {
    switch (step.kind) {
      case 'rows':
        return this.rows(step.statement, step.values);
      case 'run':
        return this.execute(step.statement, step.values);
      case 'transaction':
        return this.database.inTransaction ? this.#transaction(step.work) : this.#transaction.immediate(step.work);
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
