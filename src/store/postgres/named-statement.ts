import { createHash } from 'node:crypto';

/**
 * A SQL text and the name PostgreSQL prepares it under, once per connection.
 *
 * @example
 * const { name, text } = namedStatement('SELECT 1');
 */
export interface NamedStatement {
  readonly name: string;
  readonly text: string;
}

const statements = new Map<string, NamedStatement>();

/**
 * The one way the PostgreSQL adapters name their statements: the name is a
 * hash of the text, so a text is prepared once per connection and reused
 * (`{ name, text, values }`), two texts never share a name, and a query
 * whose text depends on its filters is prepared once per shape. Tables are
 * not schema-qualified: the connection's `search_path` picks the schema, and
 * PostgreSQL re-plans a prepared statement when `search_path` changes.
 *
 * @example
 * const loadRun = namedStatement('SELECT run_id FROM runs WHERE run_id = $1');
 * await database.query(loadRun, [runId]);
 */
export function namedStatement(text: string): NamedStatement {
  let statement = statements.get(text);
  if (statement === undefined) {
    statement = { name: `arbiter_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text };
    statements.set(text, statement);
  }
  return statement;
}
