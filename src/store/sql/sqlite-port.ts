import type Database from 'better-sqlite3';
import { type PreparedStatements, preparedStatements } from '../sqlite/prepared-statements.js';
import { positionalBinding } from './bind-positional.js';
import type { SqlPort } from './sql-port.js';
import type { SqlProgram, SqlStatement, SqlStep, SqlValue } from './sql-program.js';

/** A statement as this connection runs it: prepared once, with how its values are bound. */
interface Prepared {
  /** The text SQLite prepares (`?` for each `$n`). */
  readonly sqlite: string;
  /** The connection's shared statement, for `execute`: prepared on its first run. */
  statement: Database.Statement | undefined;
  /** The `$n` each `?` takes, in order. */
  readonly order: readonly number[];
  /** Whether `order` is `$1` … `$n`, each once: then values given exactly so are bound as they are. */
  readonly inOrder: boolean;
  /** How many values the statement binds (`$n`'s highest `n`). */
  readonly count: number;
  readonly text: string;
  /** Its rows as `rows` reads them (null: a statement that returns none): made on the first read. */
  reader: RowReader | null | undefined;
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
 * come in order (no copy unless one is a boolean), handed over as
 * arguments rather than as an array (`asArguments`), the transaction wrapper
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
    const bound = this.#bound(prepared, values);
    // Prepared once per connection for reading (`rowReader`), not also as the shared statement: a reader is read, not run.
    if (prepared.reader === undefined) prepared.reader = rowReader(this.database, prepared.sqlite);
    // A statement that returns nothing throws better-sqlite3's own error, as it always did.
    if (prepared.reader === null) return allRows(this.#shared(prepared), bound) as Row[];
    return prepared.reader.all(bound) as Row[];
  }

  /**
   * Runs one write, at once; answers how many rows it changed.
   *
   * @example
   * port.execute(statements.recordToolResult, values);
   */
  execute(statement: SqlStatement, values: readonly SqlValue[] = []): number {
    const prepared = this.#preparedOf(statement);
    const shared = this.#shared(prepared);
    const bound = this.#bound(prepared, values);
    return (asArguments(bound) ? shared.run(...bound) : shared.run(bound)).changes;
  }

  #shared(prepared: Prepared): Database.Statement {
    prepared.statement ??= this.#statement(prepared.sqlite);
    return prepared.statement;
  }

  #preparedOf(sql: SqlStatement): Prepared {
    let prepared = this.#prepared.get(sql);
    if (prepared === undefined) {
      const { text, order } = positionalBinding(sql.sqlite);
      prepared = {
        sqlite: text,
        statement: undefined,
        order,
        inOrder: order.every((position, index) => position === index + 1),
        count: order.length === 0 ? 0 : Math.max(...order),
        text: sql.sqlite,
        reader: undefined,
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

/**
 * A statement's rows as objects, the same as better-sqlite3's (each column
 * under its name, in column order, a later column of the same name
 * winning), made in JavaScript from the statement's values in raw mode:
 * better-sqlite3 sets each column on an empty object through V8's API,
 * one map transition per column and per row (about 37k instructions for a
 * session's row of 26 columns); here one object literal of the statement's
 * columns, compiled once, makes each row (issue 48). A statement of its
 * own (one per connection and text, `rowReader`): `raw` would change the
 * connection's shared one for every adapter preparing the same text.
 */
class RowReader {
  readonly #statement: Database.Statement;
  #width = 0;
  #make: MakeRow = () => ({});

  constructor(statement: Database.Statement) {
    this.#statement = statement.raw(true);
    this.#learnColumns();
  }

  all(values: readonly unknown[]): Record<string, unknown>[] {
    const found = allRows(this.#statement, values) as unknown[][];
    const rows: Record<string, unknown>[] = [];
    for (const row of found) {
      // A statement SQLite prepared again (the schema changed) may answer other columns: read them again.
      if (row.length !== this.#width) this.#learnColumns();
      rows.push(this.#make(row));
    }
    return rows;
  }

  #learnColumns(): void {
    const names = this.#statement.columns().map((column) => column.name);
    this.#width = names.length;
    this.#make = rowMaker(names);
  }
}

const rowReaders = new WeakMap<Database.Database, Map<string, RowReader | null>>();

/**
 * The connection's reader of the rows of `text` (null for a statement that
 * returns none), prepared on first use and shared by every port on the
 * connection, as `preparedStatements` shares its statements.
 */
function rowReader(database: Database.Database, text: string): RowReader | null {
  let readers = rowReaders.get(database);
  if (readers === undefined) {
    readers = new Map();
    rowReaders.set(database, readers);
  }
  let reader = readers.get(text);
  if (reader === undefined) {
    const statement = database.prepare(text);
    reader = statement.reader ? new RowReader(statement) : null;
    readers.set(text, reader);
  }
  return reader;
}

/** Makes a row object from a statement's values in raw mode. */
type MakeRow = (values: readonly unknown[]) => Record<string, unknown>;

/**
 * `(values) => ({ "name": values[0], … })` for the columns `names`: an
 * object literal, so every row of the statement is made from one
 * boilerplate with one hidden class, where setting the keys one by one (by
 * better-sqlite3 through V8's API, or by a keyed store in a loop) walks the
 * map transitions per key and row. The names are SQLite's column names,
 * each written as a JSON string, which is a JavaScript string literal: a
 * name is never code. A repeated name keeps its first place and its last
 * value, as better-sqlite3's assignments do.
 */
function rowMaker(names: readonly string[]): MakeRow {
  // `"__proto__": v` in a literal would set the prototype; as a computed key it is a key, as on better-sqlite3 12 on
  // Node.js 22 and later.
  const fields = names
    .map(
      (name, index) => `${name === '__proto__' ? `[${JSON.stringify(name)}]` : JSON.stringify(name)}: values[${index}]`,
    )
    .join(', ');
  return new Function('values', `return { ${fields} };`) as MakeRow;
}

/**
 * Whether `values` can be handed to better-sqlite3 as arguments (`run(...values)`)
 * rather than as one array: it reads an array's elements one by one through
 * V8's API (about 430 instructions each, 18 values in a durable step's
 * commit), an argument directly. Not when one is an array or an object
 * other than bytes: as an argument, better-sqlite3 would bind an array's
 * elements in its place, or an object's keys as named parameters.
 */
function asArguments(values: readonly unknown[]): boolean {
  for (let index = 0; index < values.length; index += 1) {
    const value = values[index];
    if (typeof value === 'object' && value !== null && !ArrayBuffer.isView(value)) return false;
  }
  return true;
}

/** `statement.all` of `values`, as arguments where they can be (`asArguments`). */
function allRows(statement: Database.Statement, values: readonly unknown[]): unknown[] {
  return asArguments(values) ? statement.all(...values) : statement.all(values);
}

/** What SQLite stores for a value: booleans as 0 and 1 (it has no boolean). */
function sqliteValue(value: unknown): unknown {
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}
