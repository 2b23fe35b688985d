import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from './sqlite-store.js';
import { startChildUntil } from './test-support/child-process.js';
import { backstopFrames, WalCheckpointer, type WalCheckpointPass } from './wal-checkpointer.js';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function databaseFile(): string {
  const directory = mkdtempSync(join(tmpdir(), 'arbiter-checkpoints-'));
  directories.push(directory);
  return join(directory, 'arbiter.db');
}

function openWal(path: string): Database.Database {
  const database = new Database(path);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.exec('CREATE TABLE IF NOT EXISTS numbered (n INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  return database;
}

/** Commits rows `from`..`to`, one transaction each (each about two pages). */
function commitRows(database: Database.Database, from: number, to: number): void {
  const insert = database.prepare('INSERT INTO numbered (n, body) VALUES (?, ?)');
  const commit = database.transaction((n: number) => insert.run(n, `row ${n} `.repeat(300)));
  for (let n = from; n <= to; n += 1) commit(n);
}

const autocheckpoint = (database: Database.Database) => database.pragma('wal_autocheckpoint', { simple: true });

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('WalCheckpointer', () => {
  it('copies the WAL back on its own thread, so the connection never checkpoints inside a commit below the backstop', async () => {
    const path = databaseFile();
    const database = openWal(path);
    const passes: WalCheckpointPass[] = [];
    const checkpoints = new WalCheckpointer({
      database,
      path,
      options: { startAfterMs: 0, busyIntervalMs: 1, idleIntervalMs: 5 },
      onPass: (pass) => passes.push(pass),
    });
    try {
      await until(() => autocheckpoint(database) === backstopFrames, 'the thread to start');
      expect(checkpoints.running).toBe(true);
      // 1,500 commits of about two pages: past SQLite's default of 1,000 frames, where the connection would have checkpointed itself.
      commitRows(database, 1, 1500);
      await until(
        () => passes.some((pass) => pass.log >= 2000 && pass.checkpointed === pass.log),
        'a pass that copied the whole WAL',
      );
      // The WAL was all copied, so a commit starts it over, and the thread's next pass finds only the frames
      // written since. Not necessarily at the very next commit: one made while a pass holds its read lock
      // leaves the WAL to a later one. Only the thread checkpoints here (the connection's own
      // checkpoint would start at the backstop, far above).
      let next = 1501;
      const seen = passes.length;
      await until(() => {
        commitRows(database, next, next);
        next += 1;
        return passes.slice(seen).some((pass) => pass.log < 50);
      }, 'a pass that finds the WAL started over');
      expect(database.prepare('SELECT COUNT(*) AS rows FROM numbered').get()).toEqual({ rows: next - 1 });
    } finally {
      checkpoints.close();
      database.close();
    }
  });

  it('hands checkpoints back to the connection when it is closed', async () => {
    const path = databaseFile();
    const database = openWal(path);
    const checkpoints = new WalCheckpointer({ database, path, options: { startAfterMs: 0 } });
    await until(() => autocheckpoint(database) === backstopFrames, 'the thread to start');
    checkpoints.close();
    expect(checkpoints.running).toBe(false);
    expect(autocheckpoint(database)).toBe(1000);
    database.close();
  });

  it('never starts a thread for a store closed before `startAfterMs`, nor for one in memory', async () => {
    const store = openSqliteStore({ path: databaseFile(), checkpoints: { startAfterMs: 50 } });
    expect(store.checkpointer?.running).toBe(false);
    store.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(store.checkpointer?.running).toBe(false);
    expect(openSqliteStore({ path: ':memory:' }).checkpointer).toBeUndefined();
    expect(openSqliteStore({ path: databaseFile(), checkpoints: 'inline' }).checkpointer).toBeUndefined();
  });

  it('falls back to checkpointing inline, saying why, when its thread cannot open the file', async () => {
    const path = databaseFile();
    const database = openWal(path);
    const checkpoints = new WalCheckpointer({ database, path: `${path}.missing`, options: { startAfterMs: 0 } });
    try {
      await until(() => checkpoints.failure !== undefined, 'the thread to fail');
      expect(checkpoints.failure).toMatch(/unable to open|does not exist|SQLITE_CANTOPEN/i);
      expect(checkpoints.running).toBe(false);
      expect(autocheckpoint(database)).toBe(1000);
    } finally {
      checkpoints.close();
      database.close();
    }
  });

  it('keeps every committed row when the process is killed while the thread checkpoints', async () => {
    const path = databaseFile();
    const { child, exited } = await startChildUntil(
      'src/store/sqlite/test-support/checkpoint-child.ts',
      [path],
      'writing',
    );
    // Let it commit and checkpoint side by side for a moment, then kill it wherever it is.
    await new Promise((resolve) => setTimeout(resolve, 150 + Math.random() * 150));
    child.kill('SIGKILL');
    await exited;

    const database = new Database(path);
    try {
      expect(database.pragma('integrity_check', { simple: true })).toBe('ok');
      const { rows, highest } = database.prepare('SELECT COUNT(*) AS rows, MAX(n) AS highest FROM numbered').get() as {
        rows: number;
        highest: number;
      };
      // Every row up to the last committed one, none missing: commits are in order, one row each.
      expect(rows).toBeGreaterThan(500);
      expect(highest).toBe(rows);
    } finally {
      database.close();
    }
  });
});
