import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../core/chat-message.js';
import { InvalidForkPointError } from '../../errors/invalid-fork-point-error.js';
import { SessionConflictError } from '../../errors/session-conflict-error.js';
import { calls } from '../../loop/test-support/sequence-model.js';
import { SqliteSessionStore } from './sqlite-session-store.js';
import { openSqliteStore } from './sqlite-store.js';

const day = 86_400_000;

function setup() {
  const clock = { now: 1_000_000 };
  const store = openSqliteStore({ path: ':memory:' });
  const sessions = new SqliteSessionStore({ database: store.database, now: () => clock.now });
  return { store, sessions, clock };
}

const user = (content: string): ChatMessage => ({ role: 'user', content });

/** user, assistant calling two tools, two tool messages, answer, user: 6 messages. */
function toolConversation(): ChatMessage[] {
  const call = calls(['query_order', { order_id: 'SO20260901' }], ['track_shipment', { order_id: 'SO20260901' }]);
  const ids = call.role === 'assistant' ? (call.tool_calls ?? []).map((toolCall) => toolCall.id) : [];
  return [
    user('Where is SO20260901?'),
    call,
    { role: 'tool', tool_call_id: ids[0] ?? '', content: '{"status":"shipped"}' },
    { role: 'tool', tool_call_id: ids[1] ?? '', content: '{"carrier":"SF"}' },
    { role: 'assistant', content: 'It shipped with SF.' },
    user('Thanks'),
  ];
}

describe('SqliteSessionStore', () => {
  it('keeps confirmed slots: merged on set, removed with undefined, one version per write', async () => {
    const { sessions } = setup();
    const session = await sessions.create({ slots: { order_id: 'SO20260901' } });
    expect(session.slots).toEqual({ order_id: 'SO20260901' });
    const first = await sessions.setSlots({ sessionId: session.id, slots: { amount_cents: 4550, reason: 'chipped' } });
    expect(first).toEqual({
      version: session.version + 1,
      slots: { order_id: 'SO20260901', amount_cents: 4550, reason: 'chipped' },
    });
    await sessions.setSlots({ sessionId: session.id, slots: { reason: undefined } });
    expect(await sessions.getSlots(session.id)).toEqual({ order_id: 'SO20260901', amount_cents: 4550 });
    expect((await sessions.load(session.id))?.version).toBe(session.version + 2);
  });

  it('refuses a write based on a version someone else replaced, and writes nothing', async () => {
    const { sessions } = setup();
    const session = await sessions.create();
    await sessions.append({ sessionId: session.id, messages: [user('first')] });
    const stale = sessions.append({
      sessionId: session.id,
      messages: [user('second')],
      expectedVersion: session.version,
    });
    await expect(stale).rejects.toSatisfy(SessionConflictError.isInstance);
    const slots = sessions.setSlots({ sessionId: session.id, slots: { a: 1 }, expectedVersion: session.version });
    await expect(slots).rejects.toSatisfy(SessionConflictError.isInstance);
    const stored = await sessions.load(session.id);
    expect(stored?.messages).toEqual([user('first')]);
    expect(stored?.slots).toEqual({});
  });

  it('refuses messages from outside the active run, which would land between its calls and their answers', async () => {
    const { sessions } = setup();
    const session = await sessions.create();
    await sessions.beginRun({ sessionId: session.id, runId: 'run-1', messages: [user('Refund SO20260902')] });
    const outside = sessions.append({ sessionId: session.id, messages: [user('Hello?')] });
    await expect(outside).rejects.toSatisfy(
      (error: unknown) => SessionConflictError.isInstance(error) && error.activeRunId === 'run-1',
    );
    await sessions.append({ sessionId: session.id, messages: [user('from the run')], runId: 'run-1' });
    expect((await sessions.load(session.id))?.messages.map((message) => message.content)).toEqual([
      'Refund SO20260902',
      'from the run',
    ]);
  });

  it('starts a run and appends its request in one write, and fences a second resume of the same version', async () => {
    const { sessions } = setup();
    const session = await sessions.create();
    const { version } = await sessions.beginRun({
      sessionId: session.id,
      runId: 'run-1',
      messages: [user('Hi')],
      expectedVersion: session.version,
    });
    const loaded = await sessions.load(session.id);
    expect(loaded?.messages).toEqual([user('Hi')]);
    expect(loaded?.activeRun?.runId).toBe('run-1');
    expect(loaded?.version).toBe(version);
    await sessions.beginRun({ sessionId: session.id, runId: 'run-1', expectedVersion: version });
    const second = sessions.beginRun({ sessionId: session.id, runId: 'run-1', expectedVersion: version });
    await expect(second).rejects.toSatisfy(SessionConflictError.isInstance);
  });

  it('refuses a journal commit from a run that is no longer active, or that another process moved on', async () => {
    const { sessions } = setup();
    const session = await sessions.create();
    await sessions.beginRun({ sessionId: session.id, runId: 'run-1', messages: [user('Hi')] });
    const step = (appended: ChatMessage[]) => ({
      runId: 'run-1',
      sessionId: session.id,
      appended,
      steps: 1,
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
    });
    const zombie = sessions.journal({ sessionId: session.id, expectedMessageCount: 1 });
    const resumed = sessions.journal({ sessionId: session.id, expectedMessageCount: 1 });
    await resumed.commitStep(step([{ role: 'assistant', content: 'Hello' }]));
    await expect(zombie.commitStep(step([{ role: 'assistant', content: 'Hello again' }]))).rejects.toThrow(
      /has 2 messages, not 1/,
    );
    await sessions.endRun({ sessionId: session.id, runId: 'run-1', status: 'idle', lastSeq: 4 });
    await expect(resumed.commitStep(step([{ role: 'assistant', content: 'late' }]))).rejects.toThrow(
      /no longer the active run/,
    );
    expect((await sessions.load(session.id))?.messages).toHaveLength(2);
  });

  it('keeps the cost and event number a step commit carries, so a cost budget and event numbering survive a restart', async () => {
    const { sessions } = setup();
    const session = await sessions.create();
    await sessions.beginRun({ sessionId: session.id, runId: 'run-1', messages: [user('Hi')] });
    const journal = sessions.journal({ sessionId: session.id });
    const usage = { inputTokens: 100, outputTokens: 10, totalTokens: 110 };
    const priced = { runId: 'run-1', sessionId: session.id, appended: [user('x')], steps: 1, usage, cost: 0.25 };
    await journal.commitStep(priced);
    const later = { ...priced, appended: [user('y')], steps: 2, cost: 0.5, lastSeq: 12 };
    await journal.commitStep(later);
    const loaded = await sessions.load(session.id);
    expect(loaded?.activeRun?.cost).toBe(0.5);
    expect(loaded?.activeRun?.lastSeq).toBe(12);
    expect(loaded?.cost).toBe(0.5);
  });

  it('forks a prefix into a new session that shares nothing mutable with the original', async () => {
    const { sessions } = setup();
    const original = await sessions.create({
      slots: { order_id: 'SO20260901' },
      principal: { tenantId: 'shop', userId: 'C1001', roles: [] },
    });
    const conversation = toolConversation();
    await sessions.append({ sessionId: original.id, messages: conversation });
    const fork = await sessions.fork({ sessionId: original.id, atMessage: 5, newSessionId: 'fork-1' });
    expect(fork).toMatchObject({ id: 'fork-1', forkedFrom: original.id, forkedAt: 5, userId: 'C1001', stepCount: 0 });
    expect(fork.messages).toEqual(conversation.slice(0, 5));

    await sessions.append({ sessionId: fork.id, messages: [user('Only in the fork')] });
    await sessions.setSlots({ sessionId: fork.id, slots: { order_id: 'SO20260902' } });
    const after = await sessions.load(original.id);
    expect(after?.messages).toHaveLength(6);
    expect(after?.slots).toEqual({ order_id: 'SO20260901' });
    expect((await sessions.load(fork.id))?.messages).toHaveLength(6);
  });

  it('refuses to fork between tool calls and their answers, naming the nearest points that work', async () => {
    const { sessions } = setup();
    const original = await sessions.create({ sessionId: 'original' });
    await sessions.append({ sessionId: original.id, messages: toolConversation() });
    for (const atMessage of [2, 3]) {
      await expect(sessions.fork({ sessionId: original.id, atMessage })).rejects.toSatisfy(
        (error: unknown) =>
          InvalidForkPointError.isInstance(error) && error.nearestBefore === 1 && error.nearestAfter === 4,
      );
    }
    await expect(sessions.fork({ sessionId: original.id, atMessage: 3 })).rejects.toThrowErrorMatchingInlineSnapshot(
      `[InvalidForkPointError: cannot fork session original at message 3: message 3 would separate an assistant message's tool calls from their tool messages; fork at 1 or 4 instead]`,
    );
    await expect(sessions.fork({ sessionId: original.id, atMessage: 9 })).rejects.toThrow(/--at must be 0 to 6/);
    expect(await sessions.list()).toHaveLength(1);
  });

  it('moves the expiry forward on every write, and purges expired and idle sessions with their messages', async () => {
    const { store, sessions, clock } = setup();
    const short = await sessions.create({ sessionId: 'short', ttlMs: day });
    const long = await sessions.create({ sessionId: 'long', ttlMs: 30 * day });
    const old = await sessions.create({ sessionId: 'old' });
    await sessions.beginRun({ sessionId: short.id, runId: 'run-s', messages: [user('Hi')] });
    sessions.journal({ sessionId: short.id }).recordToolResult('run-s', {
      toolCallId: 'c1',
      tool: 'query_order',
      content: '{}',
      outcome: { ok: true, data: {} },
    });
    clock.now += day / 2;
    await sessions.append({ sessionId: long.id, messages: [user('still here')] });
    expect((await sessions.load(long.id))?.expiresAt).toBe(clock.now + 30 * day);
    expect((await sessions.load(short.id))?.expiresAt).toBe(short.createdAt + day);

    clock.now += day;
    expect(await sessions.purge({ expired: true })).toEqual({ sessionIds: ['short'] });
    const leftovers = store.database
      .prepare(
        "SELECT (SELECT COUNT(*) FROM session_messages WHERE session_id = 'short') + (SELECT COUNT(*) FROM tool_results WHERE session_id = 'short') AS n",
      )
      .get() as { n: number };
    expect(leftovers.n).toBe(0);

    clock.now += 10 * day;
    await sessions.append({ sessionId: long.id, messages: [user('active')] });
    expect(await sessions.purge({ olderThanDays: 7 })).toEqual({ sessionIds: [old.id] });
    expect((await sessions.list()).map((summary) => summary.id)).toEqual(['long']);
  });

  it('lists sessions most recently updated first, without their messages', async () => {
    const { sessions, clock } = setup();
    await sessions.create({ sessionId: 'a' });
    clock.now += 1;
    await sessions.create({ sessionId: 'b' });
    clock.now += 1;
    await sessions.append({ sessionId: 'a', messages: [user('Hi')] });
    const listed = await sessions.list();
    expect(listed.map((summary) => [summary.id, summary.messageCount])).toEqual([
      ['a', 1],
      ['b', 0],
    ]);
    expect(await sessions.list({ limit: 1 })).toHaveLength(1);
  });

  it('records the language and model a run begins with, keeps them when it is resumed, and copies them to a fork', async () => {
    const { sessions } = setup();
    const session = await sessions.create({ sessionId: 'zh' });
    expect(session).toMatchObject({ locale: undefined, model: undefined });
    await sessions.beginRun({ sessionId: 'zh', runId: 'run-1', locale: 'zh-CN', model: 'scripted:order-status' });
    await sessions.endRun({ sessionId: 'zh', runId: 'run-1', status: 'awaiting_approval', lastSeq: 3 });
    // Another process resumes the run with other settings: the run's own stay.
    await sessions.beginRun({ sessionId: 'zh', runId: 'run-1', locale: 'en', model: 'openai:gpt-4o' });
    expect(await sessions.load('zh')).toMatchObject({ locale: 'zh-CN', model: 'scripted:order-status' });
    await sessions.endRun({ sessionId: 'zh', runId: 'run-1', status: 'idle', lastSeq: 5 });
    expect((await sessions.list()).find((summary) => summary.id === 'zh')).toMatchObject({ locale: 'zh-CN' });
    expect(await sessions.fork({ sessionId: 'zh', newSessionId: 'zh-fork' })).toMatchObject({ locale: 'zh-CN' });

    await sessions.beginRun({ sessionId: 'zh', runId: 'run-2', locale: 'en', model: 'openai:gpt-4o' });
    expect(await sessions.load('zh')).toMatchObject({ locale: 'en', model: 'openai:gpt-4o' });
  });
});
