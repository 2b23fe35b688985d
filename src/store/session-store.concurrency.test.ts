import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteSessionStore } from './sqlite-session-store.js';
import { openSqliteStore } from './sqlite-store.js';

const run = promisify(execFile);
const worker = join(import.meta.dirname, 'test-support', 'append-worker.ts');
const directory = mkdtempSync(join(tmpdir(), 'arbiter-concurrency-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('SqliteSessionStore under concurrent appenders', () => {
  it('keeps every message of 50 appenders in 5 processes exactly once, and counts one version per write', async () => {
    const path = join(directory, 'arbiter.db');
    const store = openSqliteStore({ path });
    const sessions = new SqliteSessionStore({ database: store.database });
    const session = await sessions.create({ sessionId: 'shared' });
    const processes = 5;
    const connections = 10;
    const appends = 8;
    const startAt = Date.now() + 1500;
    const outputs = await Promise.all(
      Array.from({ length: processes }, (_, index) =>
        run(
          process.execPath,
          [
            '--import',
            'tsx',
            worker,
            path,
            session.id,
            String(index),
            String(connections),
            String(appends),
            String(startAt),
          ],
          { timeout: 60_000 },
        ),
      ),
    );
    const reports = outputs.map(
      ({ stdout }) => JSON.parse(stdout) as { clientConflicts: number; storeRetries: number },
    );

    const stored = await sessions.load(session.id);
    const writes = processes * connections * appends;
    const contents = (stored?.messages ?? []).map((message) => message.content);
    expect(contents).toHaveLength(writes);
    expect(new Set(contents).size).toBe(writes);
    for (let process_ = 0; process_ < processes; process_ += 1) {
      for (let connection = 0; connection < connections; connection += 1) {
        const mine = contents.filter((content) => content?.startsWith(`p${process_}-c${connection}-`));
        // Each appender's messages are all there, in the order it wrote them.
        expect(mine).toEqual(Array.from({ length: appends }, (_, index) => `p${process_}-c${connection}-m${index}`));
      }
    }
    const positions = store.database
      .prepare('SELECT position FROM session_messages WHERE session_id = ? ORDER BY position')
      .all(session.id) as { position: number }[];
    expect(positions.map((row) => row.position)).toEqual(Array.from({ length: writes }, (_, index) => index));
    expect(stored?.version).toBe(session.version + writes);
    // The writers really interleaved: some found the session moved on between their read and their write.
    const conflicts = reports.reduce((total, report) => total + report.clientConflicts + report.storeRetries, 0);
    expect(conflicts).toBeGreaterThan(0);
    const interleaved = contents.slice(0, 40).map((content) => content?.split('-')[0]);
    expect(new Set(interleaved).size).toBeGreaterThan(1);
    store.close();
  }, 90_000);
});
