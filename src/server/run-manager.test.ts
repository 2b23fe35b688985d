import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExternalEvent } from '../events/external-event.js';
import { ScriptedModel } from '../models/scripted-model.js';
import { loadToolsModule } from './load-tools-module.js';
import { startServer } from './start-server.js';
import { readSse } from './test-support/sse-client.js';
import { startTestServer, testAuth, testTokens } from './test-support/test-server.js';

async function post(url: string, token: string, body: unknown) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('RunManager across processes', () => {
  it('resumes a run after a restart when its approval is decided, continuing the stream and its numbering', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-restart-'));
    const options = { port: 0, dataDir, auth: testAuth, streamingDelay: false as const, onError: () => {} };
    try {
      const first = await startServer(options);
      const session = await post(`${first.url}/v1/sessions`, testTokens.alice, {});
      const message = await post(`${first.url}/v1/sessions/${session.body.id}/messages`, testTokens.alice, {
        content: 'Refund the cracked teapot, please.',
      });
      const runId = message.body.runId as string;
      const before = await readSse({ url: `${first.url}/v1/runs/${runId}/events`, token: testTokens.alice });
      const required = before.events.find((event) => event.type === 'approval:required') as { approvalId: string };
      await first.close();

      const second = await startServer(options);
      try {
        const replayed = await readSse({ url: `${second.url}/v1/runs/${runId}/events`, token: testTokens.alice });
        expect(replayed.events).toEqual(before.events);
        const decided = await post(`${second.url}/v1/approvals/${required.approvalId}`, testTokens.staff, {
          decision: 'approve',
        });
        expect(decided.status).toBe(202);
        const after = await readSse({
          url: `${second.url}/v1/runs/${runId}/events`,
          token: testTokens.alice,
          lastEventId: before.events.length,
        });
        const all: ExternalEvent[] = [...before.events, ...after.events];
        expect(all.map((event) => event.seq)).toEqual(Array.from({ length: all.length }, (_, index) => index + 1));
        expect(after.events.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'completed' });
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('serves an application tools module instead of the shop', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'arbiter-tools-'));
    const modulePath = join(directory, 'tools.mjs');
    writeFileSync(
      modulePath,
      `export function createTools({ dataDir }) {
        return [{
          name: 'get_time',
          description: 'Tell the time. Not for dates in the past: there is no sibling tool for that.',
          parameters: { type: 'object', properties: {}, additionalProperties: false },
          sideEffect: 'read',
          progress: { en: 'Checking the clock…' },
          execute: () => ({ time: '12:00', dataDirKnown: typeof dataDir === 'string' }),
        }];
      }`,
    );
    const { tools } = await loadToolsModule({ path: modulePath, context: { dataDir: directory } });
    const model = new ScriptedModel({
      script: {
        name: 'clock',
        turns: [{ steps: [{ call: { name: 'get_time', arguments: {} } }, { say: 'It is {{get_time.time}}.' }] }],
      },
    });
    const running = await startServer({ port: 0, dataDir: join(directory, 'data'), auth: testAuth, tools, model });
    try {
      const session = await post(`${running.url}/v1/sessions`, testTokens.alice, {});
      const message = await post(`${running.url}/v1/sessions/${session.body.id}/messages`, testTokens.alice, {
        content: 'What time is it?',
      });
      const { events } = await readSse({
        url: `${running.url}/v1/runs/${message.body.runId}/events`,
        token: testTokens.alice,
      });
      expect(events.find((event) => event.type === 'tool:start')).toMatchObject({ text: 'Checking the clock…' });
      expect(
        events
          .filter((event) => event.type === 'model:delta')
          .map((event) => (event.type === 'model:delta' ? event.text : ''))
          .join(''),
      ).toBe('It is 12:00.');
    } finally {
      await running.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('refuses a tools module that exports no tools', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'arbiter-tools-'));
    const modulePath = join(directory, 'empty.mjs');
    writeFileSync(modulePath, 'export const nothing = 1;');
    await expect(loadToolsModule({ path: modulePath, context: { dataDir: directory } })).rejects.toThrow(
      /must export createTools\(\) or a non-empty array of tool definitions/,
    );
    await expect(
      loadToolsModule({ path: join(directory, 'missing.mjs'), context: { dataDir: directory } }),
    ).rejects.toThrow(/cannot be loaded/);
    rmSync(directory, { recursive: true, force: true });
  });
});

describe('RunManager delivery', () => {
  it('hands a follower only events the log already holds, so a resumed run never reuses a seq a client has seen', async () => {
    const server = await startTestServer();
    try {
      const created = await server.request('/v1/sessions', { token: testTokens.alice, method: 'POST' });
      const sessionId = created.body.id as string;
      const { manager, log } = server.server;
      const seen: { seq: number; logged: number }[] = [];
      let stop = () => {};
      const start = manager.start({
        sessionId,
        principal: { tenantId: 'shop', userId: 'C1001', roles: ['customer'] },
        content: 'Where is my order SO20260901?',
        locale: 'en',
      });
      const { runId } = await start;
      stop = manager.follow(runId, (event) => seen.push({ seq: event.seq, logged: log.lastSeq(runId) }));
      await server.server.idle();
      await new Promise((resolve) => setImmediate(resolve));
      stop();
      expect(seen.length).toBeGreaterThan(3);
      for (const { seq, logged } of seen) expect(logged).toBeGreaterThanOrEqual(seq);
    } finally {
      await server.stop();
    }
  });
});
