import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExternalEvent } from '../events/external-event.js';
import { SqliteEventLog } from '../store/sqlite/sqlite-event-log.js';
import { ServerRuns } from '../store/sqlite/sqlite-server-runs.js';
import { SqliteSessionStore } from '../store/sqlite/sqlite-session-store.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { ServerLogEntry } from './server-log.js';
import { type RunningServer, startServer } from './start-server.js';
import { testAuth, testTokens } from './test-support/test-server.js';

const alice = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] };
const question = 'Where is my order SO20260901?';
const directories: string[] = [];
let running: RunningServer | undefined;

afterEach(async () => {
  await running?.close();
  running = undefined;
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** A data directory as a stopped server left it, written through the stores themselves. */
async function leftBehind(
  write: (stores: { sessions: SqliteSessionStore; runs: ServerRuns; log: SqliteEventLog }) => Promise<void>,
) {
  const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-recovery-'));
  directories.push(dataDir);
  const store = openSqliteStore({ path: join(dataDir, 'arbiter.db') });
  const sessions = new SqliteSessionStore({ database: store.database });
  await write({
    sessions,
    runs: new ServerRuns({ database: store.database }),
    log: new SqliteEventLog({ database: store.database }),
  });
  store.close();
  return dataDir;
}

async function restart(dataDir: string) {
  const entries: ServerLogEntry[] = [];
  running = await startServer({
    port: 0,
    dataDir,
    auth: testAuth,
    streamingDelay: false,
    onError: () => {},
    logger: (entry) => entries.push(entry),
  });
  return { url: running.url, entries };
}

async function get(url: string, path: string) {
  const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${testTokens.alice}` } });
  return (await response.json()) as Record<string, unknown>;
}

/** The session once it is idle with no run still running. */
async function settled(url: string, sessionId: string) {
  for (let tries = 0; ; tries += 1) {
    const session = await get(url, `/v1/sessions/${sessionId}`);
    const runs = session.runs as { status: string }[];
    if (session.status === 'idle' && runs.every((run) => run.status !== 'running')) return session;
    if (tries > 400) throw new Error(`session ${sessionId} did not settle: ${JSON.stringify(session)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function sendMessage(url: string, sessionId: string) {
  const response = await fetch(`${url}/v1/sessions/${sessionId}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${testTokens.alice}`, 'content-type': 'application/json' },
    body: JSON.stringify({ content: 'And my parcel?' }),
  });
  return response.status;
}

describe('RunManager at start-up', () => {
  it('adopts and resumes a run its session is in but the server has no record of (left by an older server)', async () => {
    let sessionId = '';
    const dataDir = await leftBehind(async ({ sessions }) => {
      sessionId = (await sessions.create({ principal: alice })).id;
      await sessions.beginRun({ sessionId, runId: 'legacy-run', messages: [{ role: 'user', content: question }] });
    });
    const { url, entries } = await restart(dataDir);

    const session = await settled(url, sessionId);
    expect(session.runs).toEqual([expect.objectContaining({ runId: 'legacy-run', status: 'completed' })]);
    expect(session.messages).toEqual([
      { role: 'user', content: question, runId: 'legacy-run' },
      expect.objectContaining({ role: 'assistant', runId: 'legacy-run' }),
    ]);
    expect(entries.filter((entry) => entry.event === 'session_recovered').map((entry) => entry.action)).toEqual([
      'adopted',
      'resumed',
    ]);
    expect(await sendMessage(url, sessionId)).toBe(202);
    expect((await settled(url, sessionId)).runs).toHaveLength(2);
  });

  it('ends the run of a session the server saw end before the process stopped', async () => {
    let sessionId = '';
    const dataDir = await leftBehind(async ({ sessions, runs }) => {
      sessionId = (await sessions.create({ principal: alice })).id;
      await sessions.beginRun({
        sessionId,
        runId: 'ended-run',
        messages: [{ role: 'user', content: question }],
        inTransaction: ({ runId, messageOffset }) =>
          runs.insert({ runId, sessionId, tenantId: 'shop', principal: alice, locale: 'en', messageOffset }),
      });
      runs.setStatus('ended-run', 'completed');
    });
    const { url, entries } = await restart(dataDir);

    const session = await settled(url, sessionId);
    expect(session).toMatchObject({ status: 'idle', activeRunId: null, runs: [{ status: 'completed' }] });
    expect(entries.map((entry) => entry.action)).toEqual(['ended_idle']);
    expect(await sendMessage(url, sessionId)).toBe(202);
  });

  it('settles a run left running whose session already left it, by its logged terminal event', async () => {
    let sessionId = '';
    const dataDir = await leftBehind(async ({ sessions, runs, log }) => {
      sessionId = (await sessions.create({ principal: alice })).id;
      for (const runId of ['logged-run', 'unlogged-run']) {
        await sessions.beginRun({
          sessionId,
          runId,
          messages: [{ role: 'user', content: question }],
          inTransaction: ({ messageOffset }) =>
            runs.insert({ runId, sessionId, tenantId: 'shop', principal: alice, locale: 'en', messageOffset }),
        });
        await sessions.append({ sessionId, runId, messages: [{ role: 'assistant', content: 'It is on its way.' }] });
        await sessions.endRun({ sessionId, runId, status: 'idle', lastSeq: 1 });
      }
      const end: ExternalEvent = {
        type: 'run:end',
        runId: 'logged-run',
        seq: 1,
        at: 1,
        stopReason: 'max_steps',
        steps: 1,
        durationMs: 1,
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      };
      log.append([end]);
    });
    const { url } = await restart(dataDir);

    expect(await get(url, '/v1/runs/logged-run')).toMatchObject({ status: 'max_steps' });
    // Nothing says how the other ended: it was cut off, as far as the server can tell.
    expect(await get(url, '/v1/runs/unlogged-run')).toMatchObject({ status: 'aborted' });
    expect(await sendMessage(url, sessionId)).toBe(202);
  });
});
