import { afterEach, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../core/chat-message.js';
import { SessionConflictError } from '../../errors/session-conflict-error.js';
import { openPostgresBackend, type PostgresBackend } from './open-postgres-backend.js';
import { setUpPostgresCluster } from './test-support/postgres-cluster.js';

// Two backends on one schema, each with its own pool: two processes (or nodes) sharing the database.
const cluster = setUpPostgresCluster();
const user = (content: string): ChatMessage => ({ role: 'user', content });
const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });
const rounds = 20;

/** Which of the settled writes went through, and the conflict kinds of those refused. */
function outcomes(settled: readonly PromiseSettledResult<unknown>[]): { won: number; conflicts: string[] } {
  const conflicts = settled.flatMap((result) => {
    if (result.status === 'fulfilled') return [];
    if (!SessionConflictError.isInstance(result.reason)) throw result.reason;
    return [result.reason.conflict.kind];
  });
  return { won: settled.length - conflicts.length, conflicts };
}

describe.skipIf(cluster.skip)('PostgresSessionStore under concurrent writers', () => {
  const opened: PostgresBackend[] = [];
  afterEach(async () => {
    for (const backend of opened.splice(0)) await backend.close();
  });
  const twoNodes = async () => {
    const schema = cluster.freshSchema();
    const nodes = await Promise.all(
      [1, 2].map(() => openPostgresBackend({ connectionString: cluster.connectionString, schema })),
    );
    opened.push(...nodes);
    return nodes as [PostgresBackend, PostgresBackend];
  };

  it('lets exactly one of two step commits on the same messages win, every time', async () => {
    const [first, second] = await twoNodes();
    const results: { won: number; conflicts: string[] }[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const session = await first.sessions.create();
      await first.sessions.beginRun({ sessionId: session.id, runId: 'run-1', messages: [user('Hi')] });
      const commit = (node: PostgresBackend, text: string) =>
        node.sessions.journal({ sessionId: session.id, expectedMessageCount: 1 }).commitStep({
          runId: 'run-1',
          sessionId: session.id,
          appended: [assistant(text)],
          steps: 1,
          usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
        });
      results.push(outcomes(await Promise.allSettled([commit(first, 'from A'), commit(second, 'from B')])));
      const stored = await second.sessions.load(session.id);
      expect(stored?.messages).toHaveLength(2);
      expect(stored).toMatchObject({ stepCount: 1, usage: { inputTokens: 10, outputTokens: 5 } });
    }
    expect(results.every(({ won }) => won === 1)).toBe(true);
    expect(new Set(results.flatMap(({ conflicts }) => conflicts))).toEqual(new Set(['message_count']));
  });

  it('lets exactly one of two writes based on the same version win, every time', async () => {
    const [first, second] = await twoNodes();
    const results: { won: number; conflicts: string[] }[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const session = await first.sessions.create();
      const append = (node: PostgresBackend, text: string) =>
        node.sessions.append({ sessionId: session.id, messages: [user(text)], expectedVersion: session.version });
      results.push(outcomes(await Promise.allSettled([append(first, 'A'), append(second, 'B')])));
      expect(await second.sessions.load(session.id)).toMatchObject({ version: session.version + 1 });
      // Two processes resuming the same run from the same read: one of them runs it.
      const { version } = await first.sessions.beginRun({ sessionId: session.id, runId: 'run-1' });
      const resume = (node: PostgresBackend) =>
        node.sessions.beginRun({ sessionId: session.id, runId: 'run-1', expectedVersion: version });
      results.push(outcomes(await Promise.allSettled([resume(first), resume(second)])));
    }
    expect(results.map(({ won }) => won)).toEqual(Array.from({ length: 2 * rounds }, () => 1));
    expect(new Set(results.flatMap(({ conflicts }) => conflicts))).toEqual(new Set(['version']));
  });

  it('queues writers that name no version on the row lock: every message lands, once, in one order', async () => {
    const [first, second] = await twoNodes();
    const session = await first.sessions.create();
    const writes = Array.from({ length: 40 }, (_, index) =>
      (index % 2 === 0 ? first : second).sessions.append({ sessionId: session.id, messages: [user(`m${index}`)] }),
    );
    const versions = (await Promise.all(writes)).map(({ version }) => version);
    expect([...versions].sort((left, right) => left - right)).toEqual(
      Array.from({ length: 40 }, (_, index) => session.version + index + 1),
    );
    const stored = await first.sessions.load(session.id);
    expect(stored?.version).toBe(session.version + 40);
    expect(stored?.messages.map((message) => message.content).sort()).toEqual(
      Array.from({ length: 40 }, (_, index) => `m${index}`).sort(),
    );
  });
});
