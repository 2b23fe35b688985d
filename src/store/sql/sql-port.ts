import type { SqlDialect, SqlProgram, SqlStatement, SqlValue } from './sql-program.js';

/** How a port answers: `sync` at once (SQLite), `async` with a promise (PostgreSQL). */
export type SqlMode = 'sync' | 'async';

/** A result as a port of `Mode` hands it back. */
export type Answer<Mode extends SqlMode, Result> = Mode extends 'sync' ? Result : Promise<Result>;

/**
 * The dialect port every store class runs its programs through: the SQL
 * dialect, and a runner that answers each step of a program (`SqlProgram`)
 * on its database, synchronously (`SqlitePort`) or not (`PostgresPort`).
 * A store class over `SqlPort<Mode>` is one class for both backends; its
 * methods answer as the port does.
 *
 * @example
 * class Claims<Mode extends SqlMode> {
 *   constructor(readonly port: SqlPort<Mode>) {}
 *   count(): Answer<Mode, number> { return this.port.run(countClaims()); }
 * }
 */
export interface SqlPort<Mode extends SqlMode> {
  readonly dialect: SqlDialect;
  /** Runs `program` to its end: its result, at once or as a promise. */
  run<Result>(program: SqlProgram<Result>): Answer<Mode, Result>;
  /** The rows of one statement: `run(rows(statement, values))` as a plain call, no program around it. */
  rows<Row>(statement: SqlStatement, values?: readonly SqlValue[]): Answer<Mode, Row[]>;
  /** Runs one write: `run(run(statement, values))` as a plain call; how many rows it changed. */
  execute(statement: SqlStatement, values?: readonly SqlValue[]): Answer<Mode, number>;
}
