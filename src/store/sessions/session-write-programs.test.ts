import { afterEach, describe, expect, it } from 'vitest';
import { type SqlProgram, transaction } from '../sql/sql-program.js';
import { SqlitePort } from '../sql/sqlite-port.js';
import { openSqliteStore, type SqliteStore } from '../sqlite/sqlite-store.js';
import type { SessionTransactions } from './session-transactions.js';
import { SqlSessionStore } from './sql-session-store.js';

describe('SqlSessionStore writes', () => {
  let store: SqliteStore | undefined;
  afterEach(() => store?.close());

  it('runs each kind of write as programs of one generator function, not of one made per call', async () => {
    store = openSqliteStore({ path: ':memory:' });
    const port = new SqlitePort(store.database);
    /** The programs each write ran, by operation, as the port was handed them. */
    const programs = new Map<string, SqlProgram<unknown>[]>();
    const transactions: SessionTransactions = {
      write: async ({ operation, work }) => {
        const program = work();
        programs.set(operation, [...(programs.get(operation) ?? []), program]);
        return port.run(transaction(() => program));
      },
      beforeRead: () => {},
    };
    const sessions = new SqlSessionStore({ port, transactions, now: () => 1000 });
    for (const sessionId of ['s1', 's2']) {
      await sessions.create({ sessionId });
      await sessions.append({ sessionId, messages: [{ role: 'user', content: 'Hi' }] });
      await sessions.setSlots({ sessionId, slots: { city: 'Shanghai' } });
      await sessions.beginRun({ sessionId, runId: `run-${sessionId}` });
      await sessions.endRun({ sessionId, runId: `run-${sessionId}`, status: 'idle', lastSeq: 1 });
      await sessions.fork({ sessionId, newSessionId: `${sessionId}-fork` });
      await sessions.purge({ olderThanDays: 0 });
    }
    for (const operation of ['append', 'setSlots', 'beginRun', 'fork', 'purge']) {
      const [first, second] = programs.get(operation) ?? [];
      expect({ operation, same: Object.getPrototypeOf(first) === Object.getPrototypeOf(second) }).toEqual({
        operation,
        same: true,
      });
    }
  });
});
