import { readdirSync, readFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { Model } from '../models/model.js';
import { ModelSemaphore } from '../models/model-semaphore.js';
import { OpenAiModel } from '../models/openai-model.js';
import { ResilientModel } from '../models/resilient-model.js';
import { type FakeChatServer, startFakeChatServer } from '../models/test-support/fake-chat-server.js';
import type { ServerLogEntry } from './server-log.js';
import { readSse } from './test-support/sse-client.js';
import { startTestServer, type TestServer, testTokens } from './test-support/test-server.js';

const apiKey = 'sk-arbiter-LEAKCHECK-5e0c1d7a93';

let server: TestServer | undefined;
let endpoint: FakeChatServer | undefined;

afterEach(async () => {
  await server?.stop();
  server = undefined;
  await endpoint?.close();
  endpoint = undefined;
});

/** A port nothing listens on: bound once to learn a free one, then closed. */
async function closedPort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function resilient(baseUrl: string): Model {
  return new ResilientModel({
    primary: new OpenAiModel({ baseUrl, apiKey, model: 'gpt-4o' }),
    policy: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20 },
    semaphore: new ModelSemaphore({ limit: 4 }),
  });
}

/** Starts a server on `model`, sends one message, reads its stream to the end; returns the run and the log. */
async function failOneRun(model: Model) {
  const entries: ServerLogEntry[] = [];
  server = await startTestServer({ model, logger: (entry) => entries.push(entry) });
  const session = await server.request('/v1/sessions', { token: testTokens.alice, method: 'POST' });
  const sent = await server.request(`/v1/sessions/${session.body.id}/messages`, {
    token: testTokens.alice,
    method: 'POST',
    body: { content: 'Where is my order SO20260901?' },
  });
  expect(sent.status).toBe(202);
  const runId = String(sent.body.runId);
  const { events } = await readSse({ url: `${server.url}/v1/runs/${runId}/events`, token: testTokens.alice });
  expect(events.at(-1)).toMatchObject({ type: 'run:error', code: 'model_call_failed' });
  return { server, runId, sessionId: String(session.body.id), entries };
}

/** Everything the server keeps in its data directory, as text. */
function storedText(dataDir: string): string {
  return readdirSync(dataDir)
    .map((name) => readFileSync(join(dataDir, name)).toString('latin1'))
    .join('\n');
}

describe('a model call that fails in a server run', () => {
  it('logs one line and stores the cause of a 401, naming endpoint and model, never the key', async () => {
    endpoint = await startFakeChatServer({
      respond: () => ({
        kind: 'error',
        status: 401,
        // Some providers quote the key they refused.
        body: { error: { message: `Incorrect API key provided: ${apiKey}`, code: 'invalid_api_key' } },
      }),
    });
    const { server, runId, sessionId, entries } = await failOneRun(resilient(endpoint.url));

    const failures = entries.filter((entry) => entry.event === 'model_call_failed');
    expect(failures).toEqual([
      expect.objectContaining({
        level: 'error',
        runId,
        sessionId,
        endpoint: endpoint.url,
        model: 'gpt-4o',
        kind: 'authentication',
        status: 401,
        attempts: 1,
        decisions: [expect.objectContaining({ kind: 'give_up', status: 401, reason: 'not_retryable' })],
      }),
    ]);
    expect(JSON.stringify(entries)).not.toContain(apiKey);

    const asOwner = await server.request(`/v1/runs/${runId}`, { token: testTokens.alice });
    expect(asOwner.body).toMatchObject({
      status: 'error',
      failure: { code: 'model_call_failed', kind: 'authentication', status: 401, attempts: 1, reason: 'not_retryable' },
    });
    // The owner (a customer) gets codes and numbers, not the endpoint or the message.
    expect(asOwner.body.failure).not.toHaveProperty('endpoint');
    expect(asOwner.body.failure).not.toHaveProperty('message');
    const asStaff = await server.request(`/v1/sessions/${sessionId}`, { token: testTokens.staff });
    expect(asStaff.body.runs).toEqual([
      expect.objectContaining({
        runId,
        status: 'error',
        failure: expect.objectContaining({
          code: 'model_call_failed',
          status: 401,
          model: 'gpt-4o',
          endpoint: endpoint.url,
          message: expect.stringContaining('refused the API key (401)'),
        }),
      }),
    ]);

    const database = new Database(join(server.dataDir, 'arbiter.db'), { readonly: true });
    const row = database.prepare('SELECT status, failure FROM server_runs WHERE run_id = ?').get(runId) as {
      status: string;
      failure: string;
    };
    database.close();
    expect(row.status).toBe('error');
    expect(JSON.parse(row.failure)).toMatchObject({ code: 'model_call_failed', modelCall: { status: 401 } });
    expect(storedText(server.dataDir)).not.toContain(apiKey);
  });

  it('logs the retries of a call to a closed port and stores its cause', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
    const { server, runId, entries } = await failOneRun(resilient(baseUrl));

    const failures = entries.filter((entry) => entry.event === 'model_call_failed');
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({
      runId,
      endpoint: baseUrl,
      model: 'gpt-4o',
      kind: 'network',
      attempts: 3,
      message: expect.stringContaining('ECONNREFUSED'),
    });
    expect(failures[0]?.status).toBeUndefined();
    const decisions = (failures[0]?.decisions ?? []) as { kind: string }[];
    expect(decisions.map((decision) => decision.kind)).toEqual(['retry', 'retry', 'give_up']);
    expect(JSON.stringify(entries)).not.toContain(apiKey);
    const run = await server.request(`/v1/runs/${runId}`, { token: testTokens.staff });
    expect(run.body.failure).toMatchObject({
      code: 'model_call_failed',
      kind: 'network',
      attempts: 3,
      reason: 'attempts_exhausted',
      endpoint: baseUrl,
    });
  });

  it('logs a failed call of a bare OpenAiModel (as `arbiter serve --model openai` uses): one try, no decisions', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
    const { server, runId, entries } = await failOneRun(new OpenAiModel({ baseUrl, apiKey, model: 'gpt-4o-mini' }));
    expect(entries.filter((entry) => entry.event === 'model_call_failed')).toEqual([
      expect.objectContaining({ runId, endpoint: baseUrl, model: 'gpt-4o-mini', kind: 'network', attempts: 1 }),
    ]);
    const run = await server.request(`/v1/runs/${runId}`, { token: testTokens.alice });
    expect(run.body.failure).toEqual({ code: 'model_call_failed', kind: 'network', attempts: 1 });
  });
});
