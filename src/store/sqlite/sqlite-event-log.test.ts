import { afterEach, describe, expect, it } from 'vitest';
import type { ExternalEvent } from '../../events/external-event.js';
import { SqliteEventLog } from './sqlite-event-log.js';
import { openSqliteStore, type SqliteStore } from './sqlite-store.js';

const stores: SqliteStore[] = [];

function open() {
  const store = openSqliteStore({ path: ':memory:' });
  stores.push(store);
  return { store, log: new SqliteEventLog({ database: store.database }) };
}

function events(runId: string, count: number, at = 1000): ExternalEvent[] {
  return Array.from({ length: count }, (_unused, index) =>
    index === 0
      ? { type: 'run:start', runId, seq: 1, at }
      : { type: 'model:delta', runId, seq: index + 1, at: at + index, step: 1, text: `part ${index}` },
  );
}

afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});

describe('SqliteEventLog', () => {
  it('replays a run’s events in seq order after a given seq', () => {
    const { log } = open();
    log.append(events('r1', 6).reverse());
    log.append(events('r2', 3));
    expect(log.readEvents({ runId: 'r1', afterSeq: 3 }).map((event) => event.seq)).toEqual([4, 5, 6]);
    expect(log.readEvents({ runId: 'r1' })).toEqual(events('r1', 6));
    expect(log.readEvents({ runId: 'r1', afterSeq: 1, limit: 2 }).map((event) => event.seq)).toEqual([2, 3]);
    expect(log.readEvents({ runId: 'missing' })).toEqual([]);
  });

  it('keeps the first copy when the same run and seq is written twice', () => {
    const { log } = open();
    log.append(events('r1', 2));
    log.append([{ type: 'heartbeat', runId: 'r1', seq: 2, at: 5 }]);
    expect(log.readEvents({ runId: 'r1' })[1]?.type).toBe('model:delta');
    expect(log.lastSeq('r1')).toBe(2);
    expect(log.lastSeq('r2')).toBe(0);
  });

  it('prunes events older than a time', () => {
    const { log } = open();
    log.append(events('old', 3, 100));
    log.append(events('new', 2, 10_000));
    expect(log.prune({ before: 5000 })).toBe(3);
    expect(log.readEvents({ runId: 'old' })).toEqual([]);
    expect(log.readEvents({ runId: 'new' })).toHaveLength(2);
  });

  it('creates its table through the store’s migrations', () => {
    const { store } = open();
    expect(store.schemaVersion).toBeGreaterThanOrEqual(30);
  });
});
