import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { PendingWrites } from './pending-writes.js';

function openDatabase() {
  const database = new Database(':memory:');
  database.exec('CREATE TABLE rows (value TEXT PRIMARY KEY)');
  const insert = database.prepare('INSERT INTO rows (value) VALUES (?)');
  const values = () =>
    (database.prepare('SELECT value FROM rows ORDER BY rowid').all() as { value: string }[]).map((row) => row.value);
  return { database, insert, values };
}

describe('PendingWrites', () => {
  it('commits queued writes, in order, inside the next transaction, before its own change', () => {
    const { database, insert, values } = openDatabase();
    const pending = new PendingWrites(database);
    pending.add({ write: () => insert.run('queued 1'), fail: () => {} });
    pending.add({ write: () => insert.run('queued 2'), fail: () => {} });
    expect(values()).toEqual([]);
    pending.transaction(() => insert.run('own'));
    expect(values()).toEqual(['queued 1', 'queued 2', 'own']);
    expect(pending.size).toBe(0);
  });

  it('keeps the queued writes when the transaction fails, and commits them with the next one', () => {
    const { database, insert, values } = openDatabase();
    const pending = new PendingWrites(database);
    const settled: boolean[] = [];
    pending.add({ write: () => insert.run('queued'), fail: () => {}, settled: (committed) => settled.push(committed) });
    expect(() =>
      pending.transaction(() => {
        throw new Error('the change refused');
      }),
    ).toThrow('the change refused');
    expect(values()).toEqual([]);
    expect(pending.size).toBe(1);
    pending.flush();
    expect(values()).toEqual(['queued']);
    expect(settled).toEqual([false, true]);
  });

  it('drops a queued write that fails and tells it why, while the others and the change commit', () => {
    const { database, insert, values } = openDatabase();
    const pending = new PendingWrites(database);
    const failures: unknown[] = [];
    pending.add({ write: () => insert.run('first'), fail: (error) => failures.push(error) });
    pending.add({
      write: () => {
        insert.run('half of a broken write');
        insert.run('first'); // a duplicate key: this write fails after writing half
      },
      fail: (error) => failures.push(error),
    });
    pending.add({ write: () => insert.run('third'), fail: (error) => failures.push(error) });
    pending.transaction(() => insert.run('own'));
    expect(values()).toEqual(['first', 'third', 'own']);
    expect(failures).toHaveLength(1);
    expect(String(failures[0])).toMatch(/UNIQUE/);
  });

  it('commits on its own once the event loop turns, so nothing waits for a write that never comes', async () => {
    const { database, insert, values } = openDatabase();
    const pending = new PendingWrites(database);
    pending.add({ write: () => insert.run('queued'), fail: () => {} });
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(values()).toEqual(['queued']);
  });

  it('tells queued writes they were dropped when the connection closed before they committed', async () => {
    const { database, insert } = openDatabase();
    const pending = new PendingWrites(database);
    const failures: unknown[] = [];
    pending.add({ write: () => insert.run('queued'), fail: (error) => failures.push(error) });
    database.close();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(String(failures[0])).toMatch(/closed before its queued writes committed/);
  });

  it('lets a write that may wait (withinMs) commit on its own only once that time is up, or sooner with one that may not', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] });
    try {
      const { database, insert, values } = openDatabase();
      const pending = new PendingWrites(database);
      pending.add({ write: () => insert.run('patient 1'), fail: () => {}, withinMs: 20 });
      pending.add({ write: () => insert.run('patient 2'), fail: () => {}, withinMs: 20 });
      vi.advanceTimersByTime(19);
      expect(values()).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(values()).toEqual(['patient 1', 'patient 2']);

      pending.add({ write: () => insert.run('patient 3'), fail: () => {}, withinMs: 20 });
      pending.add({ write: () => insert.run('prompt'), fail: () => {} });
      vi.advanceTimersByTime(0);
      expect(values()).toEqual(['patient 1', 'patient 2', 'patient 3', 'prompt']);
      expect(pending.size).toBe(0);
      vi.advanceTimersByTime(50);
      expect(values()).toHaveLength(4);
    } finally {
      vi.useRealTimers();
    }
  });
});
