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
  /** Writes per statement (its SQL, first 60 characters, spaces collapsed). */
  writesBySql: Record<string, number>;
  readsBySql: Record<string, number>;
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
 * Installs the counters; returns them (live) and `uninstall`.
 *
 * @example
 * const counter = installSqliteCounter();
 * await run();
 * counter.uninstall();
 * console.log(commitsOf(counter.counts));
 */
export function installSqliteCounter(): { counts: SqliteCounts; uninstall: () => void } {
  const counts: SqliteCounts = {
    prepares: 0,
    transactionFunctions: 0,
    transactions: 0,
    autocommitWrites: 0,
    writes: 0,
    reads: 0,
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

  databasePrototype.prepare = function prepare(this: unknown, ...parameters: unknown[]) {
    counts.prepares += 1;
    return originals.prepare.apply(this, parameters);
  };
  databasePrototype.transaction = function transaction(this: unknown, ...parameters: unknown[]) {
    counts.transactionFunctions += 1;
    return originals.transaction.apply(this, parameters);
  };
  statementPrototype.run = function run(this: StatementLike, ...parameters: unknown[]) {
    // better-sqlite3 runs its own BEGIN … COMMIT statements through this method too.
    const control = /^(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)/.exec(this.source)?.[1];
    if (control !== undefined) {
      if (control === 'BEGIN') counts.transactions += 1;
      return originals.run.apply(this, parameters);
    }
    counts.writes += 1;
    const sql = shortSql(this.source);
    counts.writesBySql[sql] = (counts.writesBySql[sql] ?? 0) + 1;
    if (!this.database.inTransaction) counts.autocommitWrites += 1;
    return originals.run.apply(this, parameters);
  };
  for (const method of ['get', 'all', 'iterate'] as const) {
    statementPrototype[method] = function read(this: StatementLike, ...parameters: unknown[]) {
      const sql = shortSql(this.source);
      // A write with RETURNING is run through get(): count it as the write it is.
      if (/^(INSERT|UPDATE|DELETE|REPLACE)\b/i.test(sql)) {
        counts.writes += 1;
        counts.writesBySql[sql] = (counts.writesBySql[sql] ?? 0) + 1;
        if (!this.database.inTransaction) counts.autocommitWrites += 1;
      } else {
        counts.reads += 1;
        counts.readsBySql[sql] = (counts.readsBySql[sql] ?? 0) + 1;
      }
      return originals[method].apply(this, parameters);
    };
  }
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
  };
}
