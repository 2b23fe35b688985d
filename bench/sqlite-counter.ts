/**
 * Counts what better-sqlite3 is asked to do while it is installed:
 * statements prepared, writes and reads run, transactions (the BEGIN
 * statements better-sqlite3 runs for `db.transaction(...)`), writes outside
 * a transaction (each its own commit), and the writes per SQL text. It
 * patches the shared prototypes of the process, so install it only around
 * the runs it measures, and `uninstall` afterwards.
 */
import Database from 'better-sqlite3';

export interface SqliteCounts {
  prepares: number;
  /** `transaction()` called: a new transaction function built (cheap, but per call site and step). */
  transactionFunctions: number;
  /** BEGIN statements run: each one transaction, committed unless it failed. */
  transactions: number;
  /** `run()` outside any transaction: SQLite commits each one on its own. */
  autocommitWrites: number;
  writes: number;
  reads: number;
  /** Rows touched: rows a read answered plus rows a write changed. */
  rows: number;
  /** Values bound to the statements run (an array or object of them counted by its entries). */
  boundValues: number;
  /** Writes per statement (its SQL, first 60 characters, spaces collapsed). */
  writesBySql: Record<string, number>;
  readsBySql: Record<string, number>;
}

/** How many values a statement call binds: each argument, an array or object by its entries. */
function boundValueCount(parameters: readonly unknown[]): number {
  let count = 0;
  for (const parameter of parameters) {
    if (Array.isArray(parameter)) count += parameter.length;
    else if (typeof parameter === 'object' && parameter !== null && !(parameter instanceof Uint8Array)) {
      count += Object.keys(parameter).length;
    } else count += 1;
  }
  return count;
}

/** All commits: transactions plus writes outside one. */
export const commitsOf = (counts: SqliteCounts): number => counts.transactions + counts.autocommitWrites;

interface StatementLike {
  readonly reader: boolean;
  readonly source: string;
  readonly database: Database.Database;
}

type AnyFunction = (...parameters: unknown[]) => unknown;

const shortSql = (source: string) => source.replace(/\s+/g, ' ').trim().slice(0, 60);

/**
 * Installs the counters; returns them (live), `uninstall`, and `reinstall`
 * (to count again after a stretch left out).
 *
 * @example
 * const counter = installSqliteCounter();
 * await run();
 * counter.uninstall();
 * console.log(commitsOf(counter.counts));
 */
export function installSqliteCounter(): { counts: SqliteCounts; uninstall: () => void; reinstall: () => void } {
  const counts: SqliteCounts = {
    prepares: 0,
    transactionFunctions: 0,
    transactions: 0,
    autocommitWrites: 0,
    writes: 0,
    reads: 0,
    rows: 0,
    boundValues: 0,
    writesBySql: {},
    readsBySql: {},
  };
  const databasePrototype = Database.prototype as unknown as Record<string, AnyFunction>;
  const probe = new Database(':memory:');
  const statementPrototype = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, AnyFunction>;
  probe.close();
  const originals = {
    prepare: databasePrototype.prepare as AnyFunction,
    transaction: databasePrototype.transaction as AnyFunction,
    run: statementPrototype.run as AnyFunction,
    get: statementPrototype.get as AnyFunction,
    all: statementPrototype.all as AnyFunction,
    iterate: statementPrototype.iterate as AnyFunction,
  };

  const patched: { database: Record<string, AnyFunction>; statement: Record<string, AnyFunction> } = {
    database: {},
    statement: {},
  };
  patched.database.prepare = function prepare(this: unknown, ...parameters: unknown[]) {
    counts.prepares += 1;
    return originals.prepare.apply(this, parameters);
  };
  patched.database.transaction = function transaction(this: unknown, ...parameters: unknown[]) {
    counts.transactionFunctions += 1;
    return originals.transaction.apply(this, parameters);
  };
  patched.statement.run = function run(this: StatementLike, ...parameters: unknown[]) {
    // better-sqlite3 runs its own BEGIN … COMMIT statements through this method too.
    const control = /^(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)/.exec(this.source)?.[1];
    if (control !== undefined) {
      if (control === 'BEGIN') counts.transactions += 1;
      return originals.run.apply(this, parameters);
    }
    counts.writes += 1;
    counts.boundValues += boundValueCount(parameters);
    const sql = shortSql(this.source);
    counts.writesBySql[sql] = (counts.writesBySql[sql] ?? 0) + 1;
    if (!this.database.inTransaction) counts.autocommitWrites += 1;
    const result = originals.run.apply(this, parameters) as { changes: number };
    counts.rows += result.changes;
    return result;
  };
  for (const method of ['get', 'all', 'iterate'] as const) {
    patched.statement[method] = function read(this: StatementLike, ...parameters: unknown[]) {
      const sql = shortSql(this.source);
      counts.boundValues += boundValueCount(parameters);
      // A write with RETURNING is run through get(): count it as the write it is.
      if (/^(INSERT|UPDATE|DELETE|REPLACE)\b/i.test(sql)) {
        counts.writes += 1;
        counts.writesBySql[sql] = (counts.writesBySql[sql] ?? 0) + 1;
        if (!this.database.inTransaction) counts.autocommitWrites += 1;
      } else {
        counts.reads += 1;
        counts.readsBySql[sql] = (counts.readsBySql[sql] ?? 0) + 1;
      }
      const answer = originals[method].apply(this, parameters);
      if (method === 'all') counts.rows += (answer as unknown[]).length;
      else if (method === 'get' && answer !== undefined) counts.rows += 1;
      return answer;
    };
  }
  const reinstall = () => {
    Object.assign(databasePrototype, patched.database);
    Object.assign(statementPrototype, patched.statement);
  };
  reinstall();
  return {
    counts,
    uninstall: () => {
      databasePrototype.prepare = originals.prepare;
      databasePrototype.transaction = originals.transaction;
      statementPrototype.run = originals.run;
      statementPrototype.get = originals.get;
      statementPrototype.all = originals.all;
      statementPrototype.iterate = originals.iterate;
    },
    reinstall,
  };
}
