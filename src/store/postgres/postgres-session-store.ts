import type { EndRunRequest } from '../session-store.js';
import { sessionStatements } from '../sessions/session-statements.js';
import { SqlSessionStore } from '../sessions/sql-session-store.js';
import { PostgresPort } from '../sql/postgres-port.js';
import { namedStatement } from './named-statement.js';
import type { PostgresDatabase, PostgresQuery } from './postgres-database.js';

/** The session leaves its run (`SqlSessionStore.endRun`'s statement). */
const endRun = namedStatement(sessionStatements.endRun.any.postgres);

/**
 * Sessions in PostgreSQL: `SqlSessionStore` on a `PostgresDatabase`, with
 * the behaviour of `SqliteSessionStore`, so any number of processes and
 * nodes can share them. Every write is one transaction that first locks the
 * session's row (`SELECT … FOR UPDATE`), so writers that name no version
 * queue on the lock instead of retrying; a step commit is an update fenced
 * on its run and its message count, which takes the row's lock itself. A
 * transaction whose connection is lost before its `COMMIT` is run again
 * (`PostgresDatabase.transaction`).
 *
 * @example
 * const { sessions } = await openPostgresBackend({ connectionString: 'postgres://localhost/arbiter' });
 * const session = await sessions.create({ principal, ttlMs: 7 * 86_400_000 });
 * await runSession({ sessions, sessionId: session.id, userMessage: 'Where is my order?', model, tools });
 */
export class PostgresSessionStore extends SqlSessionStore<'async'> {
  readonly #now: () => number;

  constructor({ database, now = Date.now }: { database: PostgresDatabase; now?: () => number }) {
    super({ port: new PostgresPort(database), now });
    this.#now = now;
  }

  /**
   * `endRun`'s statement on the connection of a transaction its caller
   * holds (the run's terminal event's, so both commit together).
   *
   * @example
   * await database.transaction((query) => sessions.endRunWithin(query, { sessionId, runId, status: 'idle', lastSeq: 9 }));
   */
  async endRunWithin(query: PostgresQuery, { sessionId, runId, status, lastSeq }: EndRunRequest): Promise<void> {
    await query(endRun, [this.#now(), status, lastSeq, sessionId, runId]);
  }
}
