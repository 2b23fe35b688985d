import { describe, expect, it } from 'vitest';
import type { EventLog } from '../../events/event-log.js';
import type { ExternalEvent } from '../../events/external-event.js';
import type { SessionStore } from '../session-store.js';
import { type CreateBackend, openFreshBackends } from './contract-backend.js';

function events(runId: string, count: number, at = 1000): ExternalEvent[] {
  return Array.from({ length: count }, (_unused, index) =>
    index === 0
      ? { type: 'run:start', runId, seq: 1, at }
      : { type: 'model:delta', runId, seq: index + 1, at: at + index, step: 1, text: `part ${index}` },
  );
}

/**
 * The behaviour every `EventLog` must have: a run's events come back in
 * seq order after a given seq, the first copy of a seq stays, another run's
 * events never mix in, and pruning removes finished runs by time.
 *
 * @example
 * describeEventLogContract('SqliteEventLog', ({ now }) => openSqliteBackend({ path: ':memory:', now }));
 */
export function describeEventLogContract(
  name: string,
  createBackend: CreateBackend<{ readonly events: EventLog; readonly sessions: SessionStore }>,
): void {
  describe(`${name} (EventLog contract)`, () => {
    const open = openFreshBackends(createBackend);

    it('replays a run’s events in seq order after a given seq', async () => {
      const { backend } = await open();
      const log = backend.events;
      await log.append(events('r1', 6).reverse());
      await log.append(events('r2', 3));
      expect((await log.readEvents({ runId: 'r1', afterSeq: 3 })).map((event) => event.seq)).toEqual([4, 5, 6]);
      expect(await log.readEvents({ runId: 'r1' })).toEqual(events('r1', 6));
      expect((await log.readEvents({ runId: 'r1', afterSeq: 1, limit: 2 })).map((event) => event.seq)).toEqual([2, 3]);
      expect(await log.readEvents({ runId: 'r1', afterSeq: 6 })).toEqual([]);
      expect((await log.readEvents({ runId: 'r1', type: 'run:start' })).map((event) => event.seq)).toEqual([1]);
      expect(
        (await log.readEvents({ runId: 'r1', type: 'model:delta', afterSeq: 2, limit: 2 })).map((event) => event.seq),
      ).toEqual([3, 4]);
      expect(await log.readEvents({ runId: 'r2', type: 'approval:required' })).toEqual([]);
    });

    it('answers nothing and seq 0 for a run it never saw', async () => {
      const { backend } = await open();
      await backend.events.append(events('r1', 2));
      await backend.events.append([]);
      expect(await backend.events.readEvents({ runId: 'missing' })).toEqual([]);
      expect(await backend.events.lastSeq('missing')).toBe(0);
    });

    it('keeps the first copy when the same run and seq is written twice', async () => {
      const { backend } = await open();
      const log = backend.events;
      await log.append(events('r1', 2));
      await log.append([{ type: 'heartbeat', runId: 'r1', seq: 2, at: 5 }]);
      expect((await log.readEvents({ runId: 'r1' }))[1]?.type).toBe('model:delta');
      expect(await log.readEvents({ runId: 'r1' })).toHaveLength(2);
      expect(await log.lastSeq('r1')).toBe(2);
    });

    it('keeps the same seq of two runs apart', async () => {
      const { backend } = await open();
      await backend.events.append(events('r1', 3));
      await backend.events.append(events('r2', 1));
      expect(await backend.events.lastSeq('r1')).toBe(3);
      expect(await backend.events.lastSeq('r2')).toBe(1);
      expect((await backend.events.readEvents({ runId: 'r2' })).map((event) => event.runId)).toEqual(['r2']);
    });

    it('prunes events older than a time', async () => {
      const { backend } = await open();
      const log = backend.events;
      await log.append(events('old', 3, 100));
      await log.append(events('new', 2, 10_000));
      expect(await log.prune({ before: 5000 })).toBe(3);
      expect(await log.readEvents({ runId: 'old' })).toEqual([]);
      expect(await log.readEvents({ runId: 'new' })).toHaveLength(2);
      expect(await log.prune({ before: 5000 })).toBe(0);
    });

    it('never prunes the events of a run a session still has active, however old', async () => {
      const { backend } = await open();
      const session = await backend.sessions.create();
      await backend.sessions.beginRun({ sessionId: session.id, runId: 'going', messages: [] });
      await backend.events.append(events('going', 3, 100));
      await backend.events.append(events('done', 2, 100));
      expect(await backend.events.prune({ before: 5000 })).toBe(2);
      expect(await backend.events.readEvents({ runId: 'going' })).toHaveLength(3);
    });
  });
}
