import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrations } from './migrations/index.js';
import { openSqliteStore } from './sqlite-store.js';

describe('openSqliteStore', () => {
  const directories: string[] = [];
  afterEach(() => {
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  it('migrates a new file to the latest version in WAL mode', () => {
    const directory = mkdtempSync(join(tmpdir(), 'arbiter-store-'));
    directories.push(directory);
    const store = openSqliteStore({ path: join(directory, 'nested', 'arbiter.db') });
    expect(store.schemaVersion).toBe(Math.max(...migrations.map((migration) => migration.version)));
    expect(store.database.pragma('journal_mode', { simple: true })).toBe('wal');
    store.close();
  });

  it('applies each migration once when reopened', () => {
    const directory = mkdtempSync(join(tmpdir(), 'arbiter-store-'));
    directories.push(directory);
    const path = join(directory, 'arbiter.db');
    openSqliteStore({ path }).close();
    const store = openSqliteStore({ path });
    const applied = store.database.prepare('SELECT COUNT(*) AS count FROM schema_migrations').get() as {
      count: number;
    };
    expect(applied.count).toBe(migrations.length);
    store.close();
  });
});
