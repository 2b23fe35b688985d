import type Database from 'better-sqlite3';

/** A connection's prepared statements, by their SQL text. */
const cachesByDatabase = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/** Prepares SQL on first use and hands back the same statement every later time. */
export type PreparedStatements = (sql: string) => Database.Statement;

/**
 * The one way the SQLite adapters prepare statements: lazily, once per
 * connection and SQL text, shared by every adapter on that connection. A
 * statement is compiled the first time it runs (so an adapter built before
 * a table exists still constructs), and a query whose text depends on its
 * filters compiles once per shape.
 *
 * @example
 * const statement = preparedStatements(database);
 * const row = statement('SELECT * FROM sessions WHERE session_id = ?').get(sessionId);
 */
export function preparedStatements(database: Database.Database): PreparedStatements {
  let cache = cachesByDatabase.get(database);
  if (cache === undefined) {
    cache = new Map();
    cachesByDatabase.set(database, cache);
  }
  const statements = cache;
  return (sql) => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = database.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
}
