import { describe, expect, it } from 'vitest';
import { openSqliteBackend } from './open-sqlite-backend.js';

const day = 86_400_000;

// What every session store does is in the SessionStore contract (sqlite-backend.contract.test.ts).
describe('SqliteSessionStore', () => {
  it('purges a session with every row that belongs to it: messages and recorded tool results', async () => {
    const clock = { now: 1_000_000 };
    const backend = openSqliteBackend({ path: ':memory:', now: () => clock.now });
    const { sessions, database } = backend;
    await sessions.create({ sessionId: 'short', ttlMs: day });
    await sessions.create({ sessionId: 'kept' });
    for (const sessionId of ['short', 'kept']) {
      await sessions.beginRun({ sessionId, runId: `run-${sessionId}`, messages: [{ role: 'user', content: 'Hi' }] });
      await sessions.journal({ sessionId }).recordToolResult(`run-${sessionId}`, {
        toolCallId: 'c1',
        tool: 'query_order',
        content: '{}',
        outcome: { ok: true, data: {} },
      });
    }
    clock.now += 2 * day;
    expect(await sessions.purge({ expired: true })).toEqual({ sessionIds: ['short'] });
    const rows = (table: string) =>
      database.prepare(`SELECT session_id AS id FROM ${table} ORDER BY session_id`).all() as { id: string }[];
    expect(rows('session_messages')).toEqual([{ id: 'kept' }]);
    expect(rows('tool_results')).toEqual([{ id: 'kept' }]);
    backend.close();
  });

  it('commits a run’s answer and its end as one: when the end fails, the answer is not stored either', async () => {
    const backend = openSqliteBackend({ path: ':memory:' });
    const { sessions, database } = backend;
    const session = await sessions.create();
    await sessions.beginRun({ sessionId: session.id, runId: 'run-1', messages: [{ role: 'user', content: 'Hi' }] });
    // The worst moment: the answer's statements have run, the run's end is refused.
    database.exec(`CREATE TRIGGER refuse_end BEFORE UPDATE OF status ON sessions WHEN NEW.status = 'idle'
      BEGIN SELECT RAISE(ABORT, 'refused end'); END;`);
    const journal = sessions.journal({ sessionId: session.id, expectedMessageCount: 1, endRunWithAnswer: true });
    const answer = { role: 'assistant' as const, content: 'Shipped.' };
    const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
    await expect(
      journal.commitStep({ runId: 'run-1', sessionId: session.id, appended: [answer], steps: 1, usage, endsRun: true }),
    ).rejects.toThrow('refused end');
    expect(journal.runEnded).toBe(false);
    expect(await sessions.load(session.id)).toMatchObject({
      status: 'running',
      activeRun: { runId: 'run-1' },
      stepCount: 0,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    backend.close();
  });
});
