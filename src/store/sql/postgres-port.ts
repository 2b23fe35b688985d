import { namedStatement } from '../postgres/named-statement.js';
import type { PostgresDatabase, PostgresQuery } from '../postgres/postgres-database.js';
import type { SqlPort } from './sql-port.js';
import type { SqlProgram, SqlStatement, SqlStep, SqlValue } from './sql-program.js';

/**
 * The PostgreSQL side of the dialect port: runs a program on a
 * `PostgresDatabase`, a step per round trip, each statement prepared under
 * its name (`namedStatement`); a statement outside a transaction checks a
 * connection out for itself, and a `transaction` step runs its nested
 * program on one connection (`PostgresDatabase.transaction`, which starts
 * it again after a connection lost before `COMMIT`).
 *
 * @example
 * const port = new PostgresPort(database);
 * const count = await port.run(countPending(runId));
 */
export class PostgresPort implements SqlPort<'async'> {
  readonly dialect = 'postgres';
  readonly database: PostgresDatabase;

  constructor(database: PostgresDatabase) {
    this.database = database;
  }

  run<Result>(program: SqlProgram<Result>): Promise<Result> {
    return this.#run(program, (statement, values) => this.database.query(statement, values), false);
  }

  /**
   * The rows of one statement, one round trip on a connection of its own.
   *
   * @example
   * const found = await port.rows<ToolResultRow>(statements.toolResults, [runId]);
   */
  async rows<Row>(statement: SqlStatement, values: readonly SqlValue[] = []): Promise<Row[]> {
    return (await this.database.query(namedStatement(statement.postgres), values)).rows as Row[];
  }

  /**
   * Runs one write, one round trip; how many rows it changed.
   *
   * @example
   * await port.execute(statements.recordToolResult, values);
   */
  async execute(statement: SqlStatement, values: readonly SqlValue[] = []): Promise<number> {
    return (await this.database.query(namedStatement(statement.postgres), values)).rowCount ?? 0;
  }

  /**
   * A port that runs programs on `query`, the connection of a transaction
   * its caller holds: each step is part of that transaction (a
   * `transaction` step opens none), committed or rolled back with it.
   *
   * @example
   * await database.transaction(async (query) => {
   *   await query(insertEvents, columns);
   *   await port.within(query).run(finishRun(runId));
   * });
   */
  within(query: PostgresQuery): SqlPort<'async'> {
    return {
      dialect: this.dialect,
      run: (program) => this.#run(program, query, true),
      rows: async <Row>(statement: SqlStatement, values: readonly SqlValue[] = []) =>
        (await query<Row>(namedStatement(statement.postgres), values)).rows,
      execute: async (statement, values = []) =>
        (await query(namedStatement(statement.postgres), values)).rowCount ?? 0,
    };
  }

  async #run<Result>(program: SqlProgram<Result>, query: PostgresQuery, inTransaction: boolean): Promise<Result> {
    let answer: unknown;
    for (;;) {
      const step = program.next(answer);
      if (step.done === true) return step.value;
      answer = await this.#answer(step.value, query, inTransaction);
    }
  }

  async #answer(step: SqlStep, query: PostgresQuery, inTransaction: boolean): Promise<unknown> {
    switch (step.kind) {
      case 'rows':
        return (await query(namedStatement(step.statement.postgres), step.values)).rows;
      case 'run':
        return (await query(namedStatement(step.statement.postgres), step.values)).rowCount;
      case 'transaction':
        // Nested: part of the transaction already open.
        if (inTransaction) return this.#run(step.work(), query, true);
        return this.database.transaction((transactionQuery) => this.#run(step.work(), transactionQuery, true));
      case 'dialect':
        return this.dialect;
      case 'wait':
        return step.value;
    }
  }
}
