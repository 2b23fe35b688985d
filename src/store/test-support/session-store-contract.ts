import { describe, expect, it } from 'vitest';
import type { AssistantMessage, ChatMessage } from '../../core/chat-message.js';
import type { RecordedToolResult, StepCommit } from '../../core/run-journal.js';
import { InvalidForkPointError } from '../../errors/invalid-fork-point-error.js';
import { SessionConflictError } from '../../errors/session-conflict-error.js';
import type { BegunRun, SessionStore } from '../session-store.js';
import { type CreateBackend, openFreshBackends } from './contract-backend.js';

const day = 86_400_000;
const user = (content: string): ChatMessage => ({ role: 'user', content });
const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });
const shopper = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] } as const;

/** user, assistant calling two tools, two tool messages, answer, user: 6 messages. */
function toolConversation(): ChatMessage[] {
  const call: AssistantMessage = {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'query_order', arguments: '{"order_id":"SO20260901"}' } },
      { id: 'call_2', type: 'function', function: { name: 'track_shipment', arguments: '{"order_id":"SO20260901"}' } },
    ],
  };
  return [
    user('Where is SO20260901?'),
    call,
    { role: 'tool', tool_call_id: 'call_1', content: '{"status":"shipped"}' },
    { role: 'tool', tool_call_id: 'call_2', content: '{"carrier":"SF"}' },
    assistant('It shipped with SF.'),
    user('Thanks'),
  ];
}

function step(sessionId: string, appended: ChatMessage[], steps = 1): StepCommit {
  return {
    runId: 'run-1',
    sessionId,
    appended,
    steps,
    usage: { inputTokens: 10 * steps, outputTokens: 5 * steps, totalTokens: 15 * steps },
  };
}

/**
 * The behaviour every `SessionStore` must have, whatever holds the rows:
 * versioned writes, runs and their journals, forks, expiry, listing by
 * principal. Uses only the interface, so a PostgreSQL backend passes the
 * same suite unchanged.
 *
 * @example
 * describeSessionStoreContract('SqliteSessionStore', ({ now }) => openSqliteBackend({ path: ':memory:', now }));
 */
export function describeSessionStoreContract(
  name: string,
  createBackend: CreateBackend<{ readonly sessions: SessionStore }>,
): void {
  describe(`${name} (SessionStore contract)`, () => {
    const open = openFreshBackends(createBackend);
    const sessionsOf = async () => {
      const { backend, clock } = await open();
      return { sessions: backend.sessions, clock };
    };

    it('creates an empty session that loads back as it was written', async () => {
      const { sessions, clock } = await sessionsOf();
      const session = await sessions.create({ sessionId: 's-1', principal: shopper, slots: { order_id: 'SO1' } });
      expect(session).toMatchObject({
        id: 's-1',
        tenantId: 'shop',
        userId: 'C1001',
        status: 'idle',
        activeRun: undefined,
        messages: [],
        slots: { order_id: 'SO1' },
        stepCount: 0,
        createdAt: clock.now,
        forkedFrom: undefined,
      });
      expect(await sessions.load('s-1')).toEqual(session);
    });

    it('refuses a second session with the same id and keeps the first', async () => {
      const { sessions } = await sessionsOf();
      await sessions.create({ sessionId: 'same', slots: { first: true } });
      await expect(sessions.create({ sessionId: 'same', slots: { second: true } })).rejects.toThrow();
      expect(await sessions.getSlots('same')).toEqual({ first: true });
    });

    it('answers undefined for a session that does not exist, and refuses to write to it', async () => {
      const { sessions } = await sessionsOf();
      expect(await sessions.load('missing')).toBeUndefined();
      expect(await sessions.getSlots('missing')).toBeUndefined();
      await expect(sessions.append({ sessionId: 'missing', messages: [user('Hi')] })).rejects.toThrow(/missing/);
      await expect(sessions.setSlots({ sessionId: 'missing', slots: { a: 1 } })).rejects.toThrow(/missing/);
      await expect(sessions.beginRun({ sessionId: 'missing', runId: 'run-1' })).rejects.toThrow(/missing/);
      await expect(sessions.fork({ sessionId: 'missing' })).rejects.toThrow(/missing/);
      expect(await sessions.list()).toEqual([]);
    });

    it('keeps messages in the order they were appended, one version per write', async () => {
      const { sessions } = await sessionsOf();
      const session = await sessions.create();
      const first = await sessions.append({ sessionId: session.id, messages: [user('one'), assistant('two')] });
      const second = await sessions.append({ sessionId: session.id, messages: [user('three')] });
      expect([first.version, second.version]).toEqual([session.version + 1, session.version + 2]);
      const loaded = await sessions.load(session.id);
      expect(loaded?.messages.map((message) => message.content)).toEqual(['one', 'two', 'three']);
      expect(loaded?.version).toBe(second.version);
    });

    it('keeps confirmed slots: merged on set, removed with undefined, one version per write', async () => {
      const { sessions } = await sessionsOf();
      const session = await sessions.create({ slots: { order_id: 'SO20260901' } });
      expect(session.slots).toEqual({ order_id: 'SO20260901' });
      const first = await sessions.setSlots({
        sessionId: session.id,
        slots: { amount_cents: 4550, reason: 'chipped' },
      });
      expect(first).toEqual({
        version: session.version + 1,
        slots: { order_id: 'SO20260901', amount_cents: 4550, reason: 'chipped' },
      });
      await sessions.setSlots({ sessionId: session.id, slots: { reason: undefined } });
      expect(await sessions.getSlots(session.id)).toEqual({ order_id: 'SO20260901', amount_cents: 4550 });
      expect((await sessions.load(session.id))?.version).toBe(session.version + 2);
    });

    it('keeps a slot named __proto__ as a plain slot, never as the prototype of the slots', async () => {
      const { sessions } = await sessionsOf();
      const session = await sessions.create({ slots: { order_id: 'SO1' } });
      const changes = JSON.parse('{"__proto__": {"polluted": true}, "reason": "chipped"}') as Record<string, unknown>;
      const { slots } = await sessions.setSlots({ sessionId: session.id, slots: changes });
      for (const read of [slots, await sessions.getSlots(session.id), (await sessions.load(session.id))?.slots]) {
        expect(Object.keys(read ?? {})).toEqual(['order_id', '__proto__', 'reason']);
        expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
        expect((read as { polluted?: unknown }).polluted).toBeUndefined();
      }
      await sessions.setSlots({ sessionId: session.id, slots: JSON.parse('{"__proto__": null}') });
      expect(await sessions.getSlots(session.id)).toMatchObject({ order_id: 'SO1', reason: 'chipped' });
      expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    });

    it('refuses a write based on a version someone else replaced, and writes nothing', async () => {
      const { sessions } = await sessionsOf();
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

    it('loses no message when writers race without naming a version', async () => {
      const { sessions } = await sessionsOf();
      const session = await sessions.create();
      await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          sessions.append({ sessionId: session.id, messages: [user(`m${index}`)] }),
        ),
      );
      const loaded = await sessions.load(session.id);
      expect(loaded?.messages.map((message) => message.content).sort()).toEqual(
        Array.from({ length: 8 }, (_, index) => `m${index}`).sort(),
      );
      expect(loaded?.version).toBe(session.version + 8);
    });

    it('refuses messages from outside the active run, which would land between its calls and their answers', async () => {
      const { sessions } = await sessionsOf();
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
      const { sessions } = await sessionsOf();
      const session = await sessions.create();
      const { version } = await sessions.beginRun({
        sessionId: session.id,
        runId: 'run-1',
        messages: [user('Hi')],
        expectedVersion: session.version,
      });
      const loaded = await sessions.load(session.id);
      expect(loaded?.messages).toEqual([user('Hi')]);
      expect(loaded?.status).toBe('running');
      expect(loaded?.activeRun?.runId).toBe('run-1');
      expect(loaded?.version).toBe(version);
      await sessions.beginRun({ sessionId: session.id, runId: 'run-1', expectedVersion: version });
      const second = sessions.beginRun({ sessionId: session.id, runId: 'run-1', expectedVersion: version });
      await expect(second).rejects.toSatisfy(SessionConflictError.isInstance);
    });

    it('tells inTransaction whether the run is new or resumed, and refuses a second run while one is active', async () => {
      const { sessions } = await sessionsOf();
      const session = await sessions.create();
      await sessions.append({ sessionId: session.id, messages: [user('earlier')] });
      const begun: BegunRun[] = [];
      const remember = (run: BegunRun) => {
        begun.push(run);
      };
      await sessions.beginRun({
        sessionId: session.id,
        runId: 'run-1',
        messages: [user('Hi')],
        inTransaction: remember,
      });
      await sessions.beginRun({ sessionId: session.id, runId: 'run-1', inTransaction: remember });
      expect(begun.map(({ runId, resumed, messageOffset }) => [runId, resumed, messageOffset])).toEqual([
        ['run-1', false, 1],
        ['run-1', true, 2],
      ]);
      await expect(sessions.beginRun({ sessionId: session.id, runId: 'run-2' })).rejects.toSatisfy(
        (error: unknown) => SessionConflictError.isInstance(error) && error.activeRunId === 'run-1',
      );
    });

    it('rolls the whole begin back when inTransaction throws', async () => {
      const { sessions } = await sessionsOf();
      const session = await sessions.create();
      const failing = sessions.beginRun({
        sessionId: session.id,
        runId: 'run-1',
        messages: [user('Hi')],
        inTransaction: () => {
          throw new RangeError('the caller could not keep its record');
        },
      });
      await expect(failing).rejects.toThrow(/could not keep its record/);
      expect(await sessions.load(session.id)).toMatchObject({
        status: 'idle',
        activeRun: undefined,
        messages: [],
        version: session.version,
      });
    });

    it('ends a run idle or awaiting approval, keeping its last event number', async () => {
      const { sessions } = await sessionsOf();
      const session = await sessions.create();
      await sessions.beginRun({ sessionId: session.id, runId: 'run-1', messages: [user('Hi')] });
      await sessions.endRun({ sessionId: session.id, runId: 'run-1', status: 'awaiting_approval', lastSeq: 7 });
      expect(await sessions.load(session.id)).toMatchObject({
        status: 'awaiting_approval',
        activeRun: { runId: 'run-1', lastSeq: 7 },
      });
      await sessions.endRun({ sessionId: session.id, runId: 'run-other', status: 'idle', lastSeq: 99 });
      expect((await sessions.load(session.id))?.status).toBe('awaiting_approval');
      await sessions.endRun({ sessionId: session.id, runId: 'run-1', status: 'idle', lastSeq: 9 });
      expect(await sessions.load(session.id)).toMatchObject({ status: 'idle', activeRun: undefined });
    });

    it('commits journal steps in order, with the counters of the run and of the session', async () => {
      const { sessions } = await sessionsOf();
      const session = await sessions.create();
      await sessions.beginRun({ sessionId: session.id, runId: 'run-1', messages: [user('Hi')] });
      const journal = sessions.journal({ sessionId: session.id, expectedMessageCount: 1 });
      await journal.commitStep(step(session.id, [assistant('one')], 1));
      await journal.commitStep(step(session.id, [assistant('two')], 2));
      // The same counters again (a replayed commit) add nothing to the session's totals.
      await journal.commitStep(step(session.id, [], 2));
      const loaded = await sessions.load(session.id);
      expect(loaded?.messages.map((message) => message.content)).toEqual(['Hi', 'one', 'two']);
      expect(loaded?.activeRun).toMatchObject({ runId: 'run-1', steps: 2 });
      expect(loaded?.activeRun?.usage).toMatchObject({ inputTokens: 20, outputTokens: 10 });
      expect(loaded).toMatchObject({ stepCount: 2, usage: { inputTokens: 20, outputTokens: 10 } });
    });

    it('refuses a journal commit from a run that is no longer active, or that another process moved on', async () => {
      const { sessions } = await sessionsOf();
      const session = await sessions.create();
      await sessions.beginRun({ sessionId: session.id, runId: 'run-1', messages: [user('Hi')] });
      const zombie = sessions.journal({ sessionId: session.id, expectedMessageCount: 1 });
      const resumed = sessions.journal({ sessionId: session.id, expectedMessageCount: 1 });
      await resumed.commitStep(step(session.id, [assistant('Hello')]));
      await expect(zombie.commitStep(step(session.id, [assistant('Hello again')]))).rejects.toSatisfy(
        SessionConflictError.isInstance,
      );
      await sessions.endRun({ sessionId: session.id, runId: 'run-1', status: 'idle', lastSeq: 4 });
      await expect(resumed.commitStep(step(session.id, [assistant('late')]))).rejects.toSatisfy(
        SessionConflictError.isInstance,
      );
      expect((await sessions.load(session.id))?.messages).toHaveLength(2);
    });

    it('answers a resumed run with every result the journal before it recorded, read once', async () => {
      const { sessions } = await sessionsOf();
      const session = await sessions.create();
      await sessions.beginRun({ sessionId: session.id, runId: 'run-1', messages: [user('Hi')] });
      const before = sessions.journal({ sessionId: session.id, expectedMessageCount: 1 });
      const result = (id: string): RecordedToolResult => ({
        toolCallId: id,
        tool: 'refund',
        content: id,
        outcome: { ok: true, data: id },
      });
      await before.recordToolResult('run-1', result('c1'));
      const resumed = sessions.journal({ sessionId: session.id, expectedMessageCount: 1 });
      expect(await resumed.findToolResult('run-1', 'c1')).toEqual(result('c1'));
      expect(await resumed.findToolResult('run-1', 'c2')).toBeUndefined();
      // Recorded by the journal before after the resumed one read the run: only a zombie could do this.
      await before.recordToolResult('run-1', result('c2'));
      await resumed.recordToolResult('run-1', result('c3'));
      expect(await resumed.findToolResult('run-1', 'c3')).toEqual(result('c3'));
      expect(await sessions.journal({ sessionId: session.id }).findToolResult('run-1', 'c2')).toEqual(result('c2'));
    });

    it('keeps the cost and event number a step commit carries, so a cost budget and event numbering survive a restart', async () => {
      const { sessions } = await sessionsOf();
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
      const { sessions } = await sessionsOf();
      const original = await sessions.create({ slots: { order_id: 'SO20260901' }, principal: shopper });
      const conversation = toolConversation();
      await sessions.append({ sessionId: original.id, messages: conversation });
      const fork = await sessions.fork({ sessionId: original.id, atMessage: 5, newSessionId: 'fork-1' });
      expect(fork).toMatchObject({
        id: 'fork-1',
        forkedFrom: original.id,
        forkedAt: 5,
        tenantId: 'shop',
        userId: 'C1001',
        stepCount: 0,
      });
      expect(fork.messages).toEqual(conversation.slice(0, 5));

      await sessions.append({ sessionId: fork.id, messages: [user('Only in the fork')] });
      await sessions.setSlots({ sessionId: fork.id, slots: { order_id: 'SO20260902' } });
      const after = await sessions.load(original.id);
      expect(after?.messages).toHaveLength(6);
      expect(after?.slots).toEqual({ order_id: 'SO20260901' });
      expect((await sessions.load(fork.id))?.messages).toHaveLength(6);
    });

    it('refuses to fork between tool calls and their answers, naming the nearest points that work', async () => {
      const { sessions } = await sessionsOf();
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

    it('moves the expiry forward on every write, and purges expired and idle sessions with their tool results', async () => {
      const { backend, clock } = await open();
      const { sessions } = backend;
      const short = await sessions.create({ sessionId: 'short', ttlMs: day });
      const long = await sessions.create({ sessionId: 'long', ttlMs: 30 * day });
      const old = await sessions.create({ sessionId: 'old' });
      await sessions.beginRun({ sessionId: short.id, runId: 'run-s', messages: [user('Hi')] });
      await sessions.journal({ sessionId: short.id }).recordToolResult('run-s', {
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
      expect(await sessions.load('short')).toBeUndefined();
      expect(await sessions.journal({ sessionId: 'short' }).findToolResult('run-s', 'c1')).toBeUndefined();

      clock.now += 10 * day;
      await sessions.append({ sessionId: long.id, messages: [user('active')] });
      expect(await sessions.purge({ olderThanDays: 7 })).toEqual({ sessionIds: [old.id] });
      expect((await sessions.list()).map((summary) => summary.id)).toEqual(['long']);
      expect(await sessions.purge({ expired: true })).toEqual({ sessionIds: [] });
    });

    it('lists sessions most recently updated first, without their messages', async () => {
      const { sessions, clock } = await sessionsOf();
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
      expect(listed[0]).not.toHaveProperty('messages');
      expect(await sessions.list({ limit: 1 })).toHaveLength(1);
    });

    it("lists only the tenant's and the user's own sessions when asked for them", async () => {
      const { sessions, clock } = await sessionsOf();
      await sessions.create({ sessionId: 'shop-c1', principal: shopper });
      clock.now += 1;
      await sessions.create({ sessionId: 'shop-c2', principal: { ...shopper, userId: 'C1002' } });
      clock.now += 1;
      await sessions.create({ sessionId: 'bank-c1', principal: { ...shopper, tenantId: 'bank' } });
      clock.now += 1;
      await sessions.create({ sessionId: 'nobody' });
      const ids = async (filter: { tenantId?: string; userId?: string }) =>
        (await sessions.list(filter)).map((summary) => summary.id);
      expect(await ids({ tenantId: 'shop' })).toEqual(['shop-c2', 'shop-c1']);
      expect(await ids({ tenantId: 'shop', userId: 'C1001' })).toEqual(['shop-c1']);
      expect(await ids({ tenantId: 'bank', userId: 'C1002' })).toEqual([]);
      expect(await ids({ tenantId: 'elsewhere' })).toEqual([]);
      expect(await ids({})).toEqual(['nobody', 'bank-c1', 'shop-c2', 'shop-c1']);
    });

    it('records the language and model a run begins with, keeps them when it is resumed, and copies them to a fork', async () => {
      const { sessions } = await sessionsOf();
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
}
