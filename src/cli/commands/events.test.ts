import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ExternalEvent } from '../../events/external-event.js';
import { SqliteEventLog } from '../../store/sqlite/sqlite-event-log.js';
import { SqliteSessionStore } from '../../store/sqlite/sqlite-session-store.js';
import { openSqliteStore } from '../../store/sqlite/sqlite-store.js';
import { eventsCommand } from './events.js';

const day = 86_400_000;
const now = Date.UTC(2026, 0, 1);
let dataDirectory: string;
beforeEach(() => {
  dataDirectory = mkdtempSync(join(tmpdir(), 'arbiter-events-cli-'));
});
afterEach(() => rmSync(dataDirectory, { recursive: true, force: true }));

const runEvents = (runId: string, at: number): ExternalEvent[] => [
  { type: 'run:start', runId, seq: 1, at },
  { type: 'model:delta', runId, seq: 2, at: at + 1, step: 1, text: 'Hi' },
];

const events = (...args: string[]) => eventsCommand({ args: [...args, '--data-dir', dataDirectory], now: () => now });

describe('arbiter events', () => {
  it('prunes the events of runs finished more than the given days ago, never an active run', async () => {
    const store = openSqliteStore({ path: join(dataDirectory, 'arbiter.db') });
    const log = new SqliteEventLog({ database: store.database });
    const sessions = new SqliteSessionStore({ database: store.database, now: () => now - 90 * day });
    log.append(runEvents('old', now - 60 * day));
    log.append(runEvents('waiting', now - 60 * day));
    log.append(runEvents('recent', now - 5 * day));
    await sessions.create({ sessionId: 's1' });
    await sessions.beginRun({ sessionId: 's1', runId: 'waiting' });
    await sessions.endRun({ sessionId: 's1', runId: 'waiting', status: 'awaiting_approval', lastSeq: 2 });
    store.close();
    expect(await events('prune', '--older-than', '30')).toEqual({
      exitCode: 0,
      stdout: ['pruned 2 events of runs finished more than 30 days ago'],
      stderr: [],
    });
    const reopened = openSqliteStore({ path: join(dataDirectory, 'arbiter.db') });
    const after = new SqliteEventLog({ database: reopened.database });
    expect(['old', 'waiting', 'recent'].map((runId) => after.readEvents({ runId }).length)).toEqual([0, 2, 2]);
    reopened.close();
  });

  it('says there is no store, creating none, when there is none (as every operational command does)', async () => {
    const result = await events('prune', '--older-than', '30');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toEqual([expect.stringMatching(/^arbiter: no arbiter store at .*arbiter\.db$/)]);
  });

  it('explains bad usage with exit code 2', async () => {
    expect((await events()).stderr[0]).toBe('arbiter: events needs a subcommand');
    expect((await events('purge')).stderr[0]).toBe('arbiter: unknown subcommand "purge"');
    expect((await events('prune')).stderr[0]).toBe('arbiter: events prune needs --older-than DAYS');
    expect((await events('prune', '--older-than=-3')).stderr[0]).toBe(
      'arbiter: --older-than must be a number of days (0 or more), got "-3"',
    );
    expect((await events('prune', '--bogus')).exitCode).toBe(2);
  });
});
