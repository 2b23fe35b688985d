import { mapAnswer } from './answers.js';
import type { SqlDialect, SqlProgram } from './sql-program.js';

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
}

/**
 * Goes on with what an answer holds, whichever port gave it: at once for a
 * value, after it settles for a promise (so a synchronous port stays synchronous).
 * The same function as `mapAnswer` (`answers.ts`); import that one: a
 * module that exports `then` is a thenable, and vitest's module runner,
 * which awaits the modules it imports, fails on importing this one at run time.
 *
 * @example
 * return then(this.port.run(loadClaim(key)), (row) => row === undefined ? undefined : claimOf(row));
 */
export function then<Mode extends SqlMode, Value, Result>(
  answer: Answer<Mode, Value>,
  next: (value: Value) => Result,
): Answer<Mode, Result> {
  return mapAnswer(answer, next);
}
