import { afterEach, describe, expect, it } from 'vitest';
import type { ExternalEvent } from '../events/external-event.js';
import { parseLastEventId } from './stream-run-events.js';
import { readSse } from './test-support/sse-client.js';
import { startTestServer, type TestServer, testTokens } from './test-support/test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function startRun(content: string): Promise<{ sessionId: string; runId: string }> {
  const running = server as TestServer;
  const session = await running.request('/v1/sessions', { token: testTokens.alice, method: 'POST' });
  const sessionId = session.body.id as string;
  const message = await running.request(`/v1/sessions/${sessionId}/messages`, {
    token: testTokens.alice,
    method: 'POST',
    body: { content },
  });
  return { sessionId, runId: message.body.runId as string };
}

function stream(runId: string, options: { lastEventId?: number; stopAfter?: (event: ExternalEvent) => boolean } = {}) {
  return readSse({ url: `${(server as TestServer).url}/v1/runs/${runId}/events`, token: testTokens.alice, ...options });
}

/** A run that stops for a person's approval, read to its run:end: its events, last seq and approval id. */
async function stopForApproval() {
  const { runId } = await startRun('Refund my cracked teapot please');
  const first = await stream(runId);
  expect(first.events.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'awaiting_approval' });
  const lastSeq = first.events.at(-1)?.seq ?? 0;
  const approvalId = (first.events.find((event) => event.type === 'approval:required') as { approvalId: string })
    .approvalId;
  return { runId, first, lastSeq, approvalId };
}

const text = (events: readonly ExternalEvent[]) =>
  events.map((event) => (event.type === 'model:delta' ? event.text : '')).join('');

const seqs = (events: readonly ExternalEvent[]) => events.map((event) => event.seq);

describe('GET /v1/runs/:id/events', () => {
  it('numbers events 1, 2, 3… with id: = seq, and replays exactly what follows Last-Event-ID', async () => {
    server = await startTestServer();
    const { runId } = await startRun('Where is my order SO20260901?');
    const all = await stream(runId);
    expect(all.status).toBe(200);
    expect(seqs(all.events)).toEqual(Array.from({ length: all.events.length }, (_, index) => index + 1));
    expect(all.ids).toEqual(all.events.map((event) => String(event.seq)));
    expect(all.events.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'completed' });
    expect(all.events.find((event) => event.type === 'tool:start')).toMatchObject({ text: 'Looking up your order…' });
    expect(all.events).toEqual(server.server.manager.replay(runId, 0));
    await new Promise((resolve) => setImmediate(resolve));
    expect(server.server.log.readEvents({ runId })).toEqual(all.events);

    for (const lastEventId of [0, 1, 4, all.events.length - 1]) {
      const replay = await stream(runId, { lastEventId });
      expect(replay.events).toEqual(all.events.slice(lastEventId));
    }
    const caughtUp = await stream(runId, { lastEventId: all.events.length });
    expect(caughtUp.events).toEqual([]);
  });

  it('continues a dropped connection from Last-Event-ID mid-run with no gap and no duplicate', async () => {
    server = await startTestServer({ streamingDelay: { firstTokenMs: 20, deltaMs: 15 }, deltaWindowMs: 0 });
    const { sessionId, runId } = await startRun('Where is my order SO20260901?');
    const pieces: ExternalEvent[][] = [];
    let lastSeen = 0;
    for (let connection = 0; connection < 50; connection += 1) {
      let deltas = 0;
      const reading = await stream(runId, {
        lastEventId: lastSeen,
        stopAfter: (event) => event.type === 'model:delta' && ++deltas === 3,
      });
      pieces.push(reading.events);
      lastSeen = reading.events.at(-1)?.seq ?? lastSeen;
      if (reading.events.at(-1)?.type === 'run:end') break;
    }
    expect(pieces.length).toBeGreaterThan(3);
    const joined = pieces.flat();
    expect(seqs(joined)).toEqual(Array.from({ length: joined.length }, (_, index) => index + 1));
    expect(joined).toEqual(server.server.manager.replay(runId, 0));
    const stored = await server.server.sessions.load(sessionId);
    expect(text(joined)).toBe(stored?.messages.at(-1)?.content);
  });

  it('gives every follower of one run the same events, each once, while one of them reconnects with Last-Event-ID', async () => {
    server = await startTestServer({ streamingDelay: { firstTokenMs: 20, deltaMs: 15 }, deltaWindowMs: 0 });
    const { runId } = await startRun('Where is my order SO20260901?');
    const whole = [stream(runId), stream(runId), stream(runId)];
    let deltas = 0;
    const dropped = await stream(runId, { stopAfter: (event) => event.type === 'model:delta' && ++deltas === 2 });
    const lastSeen = dropped.events.at(-1)?.seq ?? 0;
    expect(dropped.events.at(-1)?.type).toBe('model:delta');
    const resumed = await stream(runId, { lastEventId: lastSeen });
    const readings = await Promise.all(whole);
    const expected = server.server.manager.replay(runId, 0);
    expect(expected.at(-1)).toMatchObject({ type: 'run:end' });
    for (const reading of readings) {
      expect(reading.events).toEqual(expected);
      expect(reading.ids).toEqual(expected.map((event) => String(event.seq)));
    }
    expect(resumed.events[0]?.seq).toBe(lastSeen + 1);
    expect([...dropped.events, ...resumed.events]).toEqual(expected);
  });

  it('sends `: ping` comments while a run is quiet', async () => {
    server = await startTestServer({ streamingDelay: { firstTokenMs: 400, deltaMs: 1 }, heartbeatMs: 100 });
    const { runId } = await startRun('Where is my order SO20260901?');
    const reading = await stream(runId);
    expect(reading.comments[0]).toBe('ping interval=100');
    expect(reading.comments.filter((comment) => comment === 'ping').length).toBeGreaterThanOrEqual(3);
    expect(reading.events.at(-1)?.type).toBe('run:end');
  });

  it('closes at the run:end of an approval stop, then holds a caught-up reconnect open until the run resumes', async () => {
    server = await startTestServer();
    const { runId, first, lastSeq, approvalId } = await stopForApproval();

    const waiting = stream(runId, { lastEventId: lastSeq });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await server.request(`/v1/approvals/${approvalId}`, {
      token: testTokens.staff,
      method: 'POST',
      body: { decision: 'approve' },
    });
    const resumed = await waiting;
    expect(resumed.events[0]).toMatchObject({ type: 'run:start', seq: lastSeq + 1 });
    expect(resumed.events.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'completed' });
    expect(seqs([...first.events, ...resumed.events])).toEqual(
      Array.from({ length: first.events.length + resumed.events.length }, (_, index) => index + 1),
    );

    const fromStart = await stream(runId);
    expect(fromStart.events).toEqual(first.events);
  });

  it('follows a resumed run to its run:end when the stream opens after the run ended and before its last events are written', async () => {
    server = await startTestServer();
    const running = server;
    const { runId, lastSeq, approvalId } = await stopForApproval();

    // The moment of the race: the run's status already says it ended (written when its run:end is published),
    // its last events wait for the log's next write (the next turn of the event loop). A stream opened then
    // (here in-process, before that turn) must still follow the run to its run:end.
    let opened: Promise<Response> | undefined;
    let loggedAtEnd: ExternalEvent[] = [];
    const { runs } = running.server;
    const setStatus = runs.setStatus.bind(runs);
    runs.setStatus = (statusRunId, status, failure) => {
      setStatus(statusRunId, status, failure);
      if (statusRunId !== runId || status !== 'completed' || opened !== undefined) return;
      loggedAtEnd = running.server.manager.replay(runId, lastSeq);
      queueMicrotask(() => {
        opened = Promise.resolve(
          running.server.app.request(`/v1/runs/${runId}/events`, {
            headers: {
              authorization: `Bearer ${testTokens.alice}`,
              'last-event-id': String(lastSeq),
              host: 'localhost',
            },
          }),
        );
      });
    };
    await running.request(`/v1/approvals/${approvalId}`, {
      token: testTokens.staff,
      method: 'POST',
      body: { decision: 'approve' },
    });
    await running.server.idle();
    expect(opened).toBeDefined();
    // The race was hit: when the stream opened, the log did not hold the run's end yet.
    expect(loggedAtEnd.some((event) => event.type === 'run:end')).toBe(false);
    const response = await (opened as Promise<Response>);
    expect(response.status).toBe(200);
    const resumed = (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => JSON.parse(line.slice(5)) as ExternalEvent);
    expect(resumed.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'completed' });
    expect(resumed).toEqual(running.server.manager.replay(runId, lastSeq));
    expect(seqs(resumed)).toEqual(Array.from({ length: resumed.length }, (_, index) => lastSeq + index + 1));
  });

  it('refuses a malformed Last-Event-ID with 400', async () => {
    server = await startTestServer();
    const { runId } = await startRun('Where is my order?');
    const response = await fetch(`${server.url}/v1/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${testTokens.alice}`, 'last-event-id': 'abc' },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'invalid_last_event_id' } });
  });
});

describe('parseLastEventId', () => {
  it('reads a non-negative integer, treats absence as 0 and rejects anything else', () => {
    expect([undefined, '', '0', ' 17 ', '-1', '1.5', 'abc'].map(parseLastEventId)).toEqual([
      0,
      0,
      0,
      17,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
