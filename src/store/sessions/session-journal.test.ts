import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { StepCommit } from '../../core/run-journal.js';
import { transaction } from '../sql/sql-program.js';
import { SqlitePort } from '../sql/sqlite-port.js';
import { SqliteSessionStore } from '../sqlite/sqlite-session-store.js';
import { openSqliteStore, type SqliteStore } from '../sqlite/sqlite-store.js';
import type { DeferredSessionWrite, SessionTransactions } from './session-transactions.js';
import { SqlSessionStore } from './sql-session-store.js';

const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };

describe('sessionJournal', () => {
  let store: SqliteStore | undefined;
  const closers: (() => void)[] = [];
  afterEach(() => {
    store?.close();
    for (const close of closers.splice(0)) close();
  });

  /** A session with its run begun, on a file a second connection can lock, and a step commit of it. */
  async function begunRun() {
    const directory = mkdtempSync(join(tmpdir(), 'arbiter-journal-'));
    const path = join(directory, 'arbiter.db');
    store = openSqliteStore({ path, busyTimeoutMs: 25 });
    const other = new Database(path);
    closers.push(
      () => other.close(),
      () => rmSync(directory, { recursive: true, force: true }),
    );
    const sessions = new SqliteSessionStore({ database: store.database });
    await sessions.create({ sessionId: 's1' });
    await sessions.beginRun({ sessionId: 's1', runId: 'run-1', messages: [{ role: 'user', content: 'Hi' }] });
    const commit: StepCommit = {
      runId: 'run-1',
      sessionId: 's1',
      appended: [{ role: 'assistant', content: 'Hello' }],
      steps: 1,
      usage,
    };
    return { sessions, journal: sessions.journal({ sessionId: 's1', expectedMessageCount: 1 }), commit, other };
  }

  it('commits a step on SQLite before it answers, with no promise for the loop to await', async () => {
    const { sessions, journal, commit } = await begunRun();
    expect(journal.commitStep(commit)).toBeUndefined();
    expect((await sessions.load('s1'))?.messages).toEqual([{ role: 'user', content: 'Hi' }, ...commit.appended]);
  });

  it('answers a promise while another connection holds the file locked, and commits once it lets go', async () => {
    const { sessions, journal, commit, other } = await begunRun();
    other.exec('BEGIN EXCLUSIVE');
    const committing = journal.commitStep(commit);
    expect(committing).toBeInstanceOf(Promise);
    other.exec('COMMIT');
    await committing;
    expect((await sessions.load('s1'))?.messages).toEqual([{ role: 'user', content: 'Hi' }, ...commit.appended]);
  });

  it('rejects, not throws, a step commit the session refuses', async () => {
    const { journal, commit } = await begunRun();
    const refused = journal.commitStep({ ...commit, runId: 'run-2' });
    expect(refused).toBeInstanceOf(Promise);
    await expect(refused).rejects.toMatchObject({ code: 'session_conflict' });
  });

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
