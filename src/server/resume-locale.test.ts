import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteSessionStore } from '../store/sqlite/sqlite-session-store.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import { type RunningServer, startServer } from './start-server.js';
import { readSse } from './test-support/sse-client.js';
import { testAuth, testTokens } from './test-support/test-server.js';

const alice = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] };
const directories: string[] = [];
let running: RunningServer | undefined;

afterEach(async () => {
  await running?.close();
  running = undefined;
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function dataDirectory() {
  const directory = mkdtempSync(join(tmpdir(), 'arbiter-resume-locale-'));
  directories.push(directory);
  return directory;
}

/** A server on `dataDir` as `arbiter serve` starts one: the shop's offline chat, one script per language. */
async function start(dataDir: string) {
  running = await startServer({ port: 0, dataDir, auth: testAuth, streamingDelay: false, onError: () => {} });
  return running;
}

async function request(url: string, token: string, method = 'GET', body?: unknown) {
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as Record<string, unknown>;
}

/** The session once it is idle with no run still running. */
async function settled(url: string, sessionId: string) {
  for (let tries = 0; ; tries += 1) {
    const session = await request(`${url}/v1/sessions/${sessionId}`, testTokens.alice);
    const runs = session.runs as { status: string }[];
    if (session.status === 'idle' && runs.every((run) => run.status !== 'running')) return session;
    if (tries > 400) throw new Error(`session ${sessionId} did not settle: ${JSON.stringify(session)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const chinese = /[\u4e00-\u9fff]/;

describe('a server run resumed after a restart', () => {
  it('continues in the language it began in when its approval is decided by the next process', async () => {
    const dataDir = dataDirectory();
    const first = await start(dataDir);
    const session = await request(`${first.url}/v1/sessions`, testTokens.alice, 'POST', {});
    const message = await request(`${first.url}/v1/sessions/${session.id}/messages`, testTokens.alice, 'POST', {
      content: '茶壶碎了，请退款。',
      locale: 'zh-CN',
    });
    const runId = message.runId as string;
    const before = await readSse({ url: `${first.url}/v1/runs/${runId}/events`, token: testTokens.alice });
    const required = before.events.find((event) => event.type === 'approval:required') as { approvalId: string };
    await first.close();
    running = undefined;

    const second = await start(dataDir);
    // The approver's request names no language: the run's own goes on.
    await request(`${second.url}/v1/approvals/${required.approvalId}`, testTokens.staff, 'POST', {
      decision: 'approve',
    });
    const after = await readSse({
      url: `${second.url}/v1/runs/${runId}/events`,
      token: testTokens.alice,
      lastEventId: before.events.length,
    });
    const answer = after.events.map((event) => (event.type === 'model:delta' ? event.text : '')).join('');
    expect(answer).toContain('已办好');
    const started = after.events.find((event) => event.type === 'tool:start') as { text?: string } | undefined;
    expect(started?.text).toMatch(chinese);
    expect(after.events.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'completed' });
  });

  it('adopts a run an older server left without a record in the language its session recorded', async () => {
    const dataDir = dataDirectory();
    const store = openSqliteStore({ path: join(dataDir, 'arbiter.db') });
    const sessions = new SqliteSessionStore({ database: store.database });
    const { id: sessionId } = await sessions.create({ principal: alice });
    await sessions.beginRun({
      sessionId,
      runId: 'legacy-run',
      locale: 'zh-CN',
      messages: [{ role: 'user', content: '我的订单 SO20260901 到哪了？' }],
    });
    store.close();

    const { url } = await start(dataDir);
    const session = await settled(url, sessionId);
    const [, answer] = session.messages as { role: string; content: string }[];
    expect(answer).toMatchObject({ role: 'assistant' });
    expect(answer?.content).toContain('你的订单 SO20260901');
  });
});
