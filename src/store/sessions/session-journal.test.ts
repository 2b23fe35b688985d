import { afterEach, describe, expect, it } from 'vitest';
import type { StepCommit } from '../../core/run-journal.js';
import { transaction } from '../sql/sql-program.js';
import { SqlitePort } from '../sql/sqlite-port.js';
import { openSqliteStore, type SqliteStore } from '../sqlite/sqlite-store.js';
import type { DeferredSessionWrite, SessionTransactions } from './session-transactions.js';
import { SqlSessionStore } from './sql-session-store.js';

const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };

describe('sessionJournal', () => {
  let store: SqliteStore | undefined;
  afterEach(() => store?.close());

  it('queues each rerunnable commit as a program of the shared commitStep, not of a generator function made per commit', async () => {
    store = openSqliteStore({ path: ':memory:' });
    const port = new SqlitePort(store.database);
    const queued: DeferredSessionWrite[] = [];
    const transactions: SessionTransactions = {
      write: async ({ work }) => port.run(transaction(work)),
      beforeRead: () => {},
      deferred: { add: (write) => queued.push(write as DeferredSessionWrite) },
    };
    const sessions = new SqlSessionStore({ port, transactions, now: () => 1000 });
    const commits: StepCommit[] = [];
    for (const sessionId of ['s1', 's2']) {
      await sessions.create({ sessionId });
      await sessions.beginRun({ sessionId, runId: `run-${sessionId}`, messages: [{ role: 'user', content: 'Hi' }] });
      const commit: StepCommit = {
        runId: `run-${sessionId}`,
        sessionId,
        appended: [{ role: 'tool', tool_call_id: 'call_1', content: '{"status":"shipped"}' }],
        steps: 1,
        usage,
        rerunnable: true,
      };
      commits.push(commit);
      await sessions.journal({ sessionId, expectedMessageCount: 1 }).commitStep(commit);
    }
    expect(queued).toHaveLength(2);
    // A generator function made per commit gives each program a prototype (and a V8 hidden class) of its own.
    const programs = queued.map((write) => write.work());
    expect(Object.getPrototypeOf(programs[0])).toBe(Object.getPrototypeOf(programs[1]));

    // Each still writes its commit where the journal left the messages.
    queued.forEach((write, index) => {
      const program = programs[index];
      if (program === undefined) throw new Error('a queued commit with nothing to write');
      port.run(
        transaction(function* () {
          write.wrote(yield* program);
        }),
      );
      write.settled(true);
    });
    for (const [index, sessionId] of ['s1', 's2'].entries()) {
      const session = await sessions.load(sessionId);
      expect(session?.messages).toEqual([{ role: 'user', content: 'Hi' }, ...(commits[index]?.appended ?? [])]);
    }
  });
});
