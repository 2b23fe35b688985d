import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedToolResult } from '../../core/run-journal.js';
import { openPostgresBackend } from '../postgres/open-postgres-backend.js';
import { setUpPostgresCluster } from '../postgres/test-support/postgres-cluster.js';
import type { SessionStore } from '../session-store.js';
import { openSqliteBackend } from '../sqlite/open-sqlite-backend.js';

const cluster = setUpPostgresCluster();

const usage = (tokens: number) => ({ inputTokens: tokens, outputTokens: 1, totalTokens: tokens + 1 });
const result = (toolCallId: string, content: string): RecordedToolResult => ({
  toolCallId,
  tool: 'query_order',
  content,
  outcome: { ok: true, data: { content } },
});

const dialects: {
  name: string;
  skip: boolean;
  /** Whether the journal answers `findToolResult` without a promise. */
  synchronous: boolean;
  open: (now: () => number) => Promise<{ sessions: SessionStore; close: () => Promise<void> }>;
}[] = [
  {
    name: 'SQLite',
    skip: false,
    synchronous: true,
    open: async (now) => {
      const backend = openSqliteBackend({ path: ':memory:', now });
      return { sessions: backend.sessions, close: async () => backend.close() };
    },
  },
  {
    name: 'PostgreSQL',
    skip: cluster.skip,
    synchronous: false,
    open: async (now) => {
      const backend = await openPostgresBackend({
        connectionString: cluster.connectionString,
        schema: cluster.freshSchema(),
        now,
      });
      return { sessions: backend.sessions, close: () => backend.close() };
    },
  },
];

describe.each(dialects)('SqlSessionStore on $name', ({ skip, synchronous, open }) => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it.skipIf(skip)('answers a run’s stored results after one read, the first answer to a call kept', async () => {
    const opened = await open(Date.now);
    close = opened.close;
    const { sessions } = opened;
    const session = await sessions.create();
    await sessions.beginRun({ sessionId: session.id, runId: 'run-1', messages: [{ role: 'user', content: 'Hi' }] });
    await sessions.journal({ sessionId: session.id }).recordToolResult('run-1', result('call_1', 'first'));

    const journal = sessions.journal({ sessionId: session.id });
    const finding = journal.findToolResult('run-1', 'call_1');
    expect(finding instanceof Promise).toBe(!synchronous);
    expect(await finding).toMatchObject({ content: 'first' });
    // Read once: from then on every dialect answers at once, a call recorded since included.
    await journal.recordToolResult('run-1', result('call_2', 'second'));
    await journal.recordToolResult('run-1', result('call_1', 'again'));
    expect(journal.findToolResult('run-1', 'call_2')).toMatchObject({ content: 'second' });
    expect(journal.findToolResult('run-1', 'call_1')).toMatchObject({ content: 'first' });
    expect(journal.findToolResult('run-1', 'call_3')).toBeUndefined();
    // What another journal (another process) reads: the same.
    const other = sessions.journal({ sessionId: session.id });
    expect(await other.findToolResult('run-1', 'call_1')).toMatchObject({ content: 'first' });
    expect(await other.findToolResult('run-1', 'call_2')).toMatchObject({ content: 'second' });
  });

  it.skipIf(skip)('keeps the results a journal stored before its first read of the run', async () => {
    const opened = await open(Date.now);
    close = opened.close;
    const { sessions } = opened;
    const session = await sessions.create();
    await sessions.beginRun({ sessionId: session.id, runId: 'run-1' });
    const journal = sessions.journal({ sessionId: session.id });
    // The read and the write race on PostgreSQL: whichever lands first, the journal knows the result.
    const [found] = await Promise.all([
      journal.findToolResult('run-1', 'call_0'),
      journal.recordToolResult('run-1', result('call_1', 'recorded')),
    ]);
    expect(found).toBeUndefined();
    expect(await journal.findToolResult('run-1', 'call_1')).toMatchObject({ content: 'recorded' });
  });

  it.skipIf(skip)('stores a step commit of more messages than one insert statement takes, in order', async () => {
    const opened = await open(Date.now);
    close = opened.close;
    const { sessions } = opened;
    const session = await sessions.create();
    await sessions.beginRun({ sessionId: session.id, runId: 'run-1', messages: [{ role: 'user', content: 'Hi' }] });
    const journal = sessions.journal({ sessionId: session.id, expectedMessageCount: 1 });
    // 19 = two full statements of 8 and one of 3.
    const appended = Array.from({ length: 19 }, (_, index) => ({ role: 'assistant' as const, content: `m${index}` }));
    await journal.commitStep({ runId: 'run-1', sessionId: session.id, appended, steps: 1, usage: usage(1) });
    await journal.commitStep({
      runId: 'run-1',
      sessionId: session.id,
      appended: [{ role: 'assistant', content: 'after' }],
      steps: 2,
      usage: usage(2),
    });
    const stored = await sessions.load(session.id);
    expect(stored?.messages.map((message) => message.content)).toEqual([
      'Hi',
      ...appended.map((message) => message.content),
      'after',
    ]);
  });

  /** The dialect's store on a clock the test moves (from 1,000), with a session without a TTL and one of 500 ms. */
  const sessionsOnClock = async () => {
    const clock = { now: 1_000 };
    const opened = await open(() => clock.now);
    close = opened.close;
    const { sessions } = opened;
    return { clock, sessions, lasting: await sessions.create(), expiring: await sessions.create({ ttlMs: 500 }) };
  };

  it.skipIf(skip)('moves a session’s expiry with every step commit only when it has a TTL', async () => {
    const { clock, sessions, lasting, expiring } = await sessionsOnClock();
    let begunAt = clock.now;
    for (const session of [lasting, expiring]) {
      begunAt = clock.now;
      await sessions.beginRun({ sessionId: session.id, runId: 'run-1', messages: [{ role: 'user', content: 'Hi' }] });
      const journal = sessions.journal({ sessionId: session.id, expectedMessageCount: 1 });
      for (const steps of [1, 2, 3]) {
        clock.now += 100;
        await journal.commitStep({
          runId: 'run-1',
          sessionId: session.id,
          appended: [{ role: 'assistant', content: `step ${steps}` }],
          steps,
          usage: usage(steps * 10),
        });
      }
    }
    const [lastingAfter, expiringAfter] = await Promise.all([sessions.load(lasting.id), sessions.load(expiring.id)]);
    expect(lastingAfter).toMatchObject({ expiresAt: undefined, stepCount: 3, version: 4 });
    expect(lastingAfter?.messages).toHaveLength(4);
    expect(expiringAfter).toMatchObject({ expiresAt: clock.now + 500, stepCount: 3, version: 4 });
    // The run's begin moved `updatedAt`; its steps did not.
    expect(expiringAfter?.updatedAt).toBe(begunAt);
    expect(begunAt).toBeLessThan(clock.now);
  });

  it.skipIf(skip)('ends the run with the commit of its answer only when the journal is asked to', async () => {
    const opened = await open(Date.now);
    close = opened.close;
    const { sessions } = opened;
    const answer = { role: 'assistant' as const, content: 'Shipped.' };
    const ending = await sessions.create();
    const plain = await sessions.create({ ttlMs: 60_000 });
    for (const session of [ending, plain]) {
      await sessions.beginRun({ sessionId: session.id, runId: 'run-1', messages: [{ role: 'user', content: 'Hi' }] });
      const journal = sessions.journal({
        sessionId: session.id,
        expectedMessageCount: 1,
        ...(session === ending ? { endRunWithAnswer: true } : {}),
      });
      const step = { runId: 'run-1', sessionId: session.id, steps: 1, usage: usage(5), lastSeq: 7 };
      // A commit that does not end the run leaves it active, asked or not.
      await journal.commitStep({ ...step, appended: [{ role: 'assistant', content: 'Looking.' }] });
      expect(journal.runEnded).toBe(false);
      expect((await sessions.load(session.id))?.status).toBe('running');
      await journal.commitStep({ ...step, steps: 2, appended: [answer], endsRun: true });
      expect(journal.runEnded).toBe(session === ending);
      const stored = await sessions.load(session.id);
      expect(stored?.messages.at(-1)).toEqual(answer);
      expect(stored).toMatchObject(
        session === ending
          ? { status: 'idle', activeRun: undefined, stepCount: 2 }
          : { status: 'running', activeRun: { runId: 'run-1' }, stepCount: 2 },
      );
    }
    // The journal of a run another process took over: the answer is refused, and nothing of the run ends.
    await sessions.beginRun({ sessionId: ending.id, runId: 'run-2', messages: [{ role: 'user', content: 'More' }] });
    const stale = sessions.journal({ sessionId: ending.id, endRunWithAnswer: true });
    await sessions.endRun({ sessionId: ending.id, runId: 'run-2', status: 'idle', lastSeq: 0 });
    await sessions.beginRun({ sessionId: ending.id, runId: 'run-3', messages: [{ role: 'user', content: 'Again' }] });
    await expect(
      stale.commitStep({
        runId: 'run-2',
        sessionId: ending.id,
        steps: 1,
        usage: usage(1),
        appended: [answer],
        endsRun: true,
      }),
    ).rejects.toThrow();
    expect(stale.runEnded).toBe(false);
    expect(await sessions.load(ending.id)).toMatchObject({ status: 'running', activeRun: { runId: 'run-3' } });
  });

  it.skipIf(skip)('moves the expiry when a run begins and ends only for a session with a TTL', async () => {
    const { clock, sessions, lasting, expiring } = await sessionsOnClock();
    for (const session of [lasting, expiring]) {
      clock.now += 100;
      await sessions.beginRun({ sessionId: session.id, runId: 'run-1', messages: [{ role: 'user', content: 'Hi' }] });
      expect(await sessions.load(session.id)).toMatchObject({
        status: 'running',
        updatedAt: clock.now,
        expiresAt: session.ttlMs === undefined ? undefined : clock.now + 500,
      });
      // Not the active run: nothing changes, whether the session has a TTL or not.
      clock.now += 100;
      await sessions.endRun({ sessionId: session.id, runId: 'run-other', status: 'idle', lastSeq: 9 });
      expect(await sessions.load(session.id)).toMatchObject({ status: 'running', updatedAt: clock.now - 100 });
      await sessions.endRun({ sessionId: session.id, runId: 'run-1', status: 'idle', lastSeq: 3 });
      expect(await sessions.load(session.id)).toMatchObject({
        status: 'idle',
        activeRun: undefined,
        updatedAt: clock.now,
        expiresAt: session.ttlMs === undefined ? undefined : clock.now + 500,
        version: 2,
      });
    }
  });
});
