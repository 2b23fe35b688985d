/**
 * Arbiter's HTTP API in front of an engine, as its users run it: a node of
 * `createPostgresServer({ engine })` on the test's schema (sessions, the
 * approval API, the desk, the streams), whose runs execute in the engine's
 * workers. What a customer, two approvers and a stream client do is done
 * over HTTP; what happened is read from the database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultChatTransport, type UIMessage } from 'ai6';
import { expect } from 'vitest';
import type { ExternalEvent } from '../../src/events/external-event.js';
import type { AuthConfig } from '../../src/server/auth-config.js';
import { chunksOf, messageOf } from '../../src/server/protocols/ai-sdk-ui/test-support/read-ui-message.js';
import type { ServerEngine } from '../../src/server/start-in-engine.js';
import { startPostgresTestNode } from '../../src/server/test-support/postgres-test-node.js';
import { requestJson } from '../../src/server/test-support/request-json.js';
import { readSse } from '../../src/server/test-support/sse-client.js';
import { testAuth, testTokens } from '../../src/server/test-support/test-server.js';
import { countedShopModel, shopToolDefinitions } from './engine-shop.js';
import { pollUntil } from './engine-workers.js';
import { type ArbiterWorld, auditOf, expectGaplessEvents, modelCalls } from './engine-world.js';

/** `testAuth` (alice a customer of shop, staff its approver, mallory of another tenant) and a second approver of shop. */
export const apiTokens = { ...testTokens, staff2: 'staff2-token-0006-0123456789abcdef' } as const;
const apiAuth: AuthConfig = {
  tokens: [...testAuth.tokens, { token: apiTokens.staff2, tenantId: 'shop', userId: 'S9002', roles: ['approver'] }],
};

/** A node of arbiter's API whose runs execute in `engine`. Its own model is never asked: the workers run the model. */
export async function startEngineApi({
  world,
  connectionString,
  engine,
}: {
  world: ArbiterWorld;
  connectionString: string;
  engine: ServerEngine;
}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-engine-api-'));
  const tools = shopToolDefinitions({ pool: world.backend.pool, schema: world.schema, holdWrites: false });
  const running = await startPostgresTestNode({
    connectionString,
    schema: world.schema,
    dataDir,
    auth: apiAuth,
    engine,
    tools,
    model: countedShopModel({ pool: world.backend.pool, schema: world.schema }),
  });
  return {
    url: running.url,
    request: (path: string, options: { token?: string; method?: string; body?: unknown } = {}) =>
      requestJson(running.url, path, { token: options.token ?? apiTokens.alice, ...options }),
    close: async () => {
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const isWaiting = (event: ExternalEvent | undefined) =>
  event?.type === 'run:end' && (event as { stopReason?: string }).stopReason === 'awaiting_approval';

type EngineApi = Awaited<ReturnType<typeof startEngineApi>>;

/**
 * A customer's refund through the API: the session created and the message
 * posted over HTTP, the run streamed over SSE from its first event; while it
 * waits for a person, `whileWaiting` (a worker restarted, a new build
 * deployed) runs and the stream is dropped; another tenant's approver finds
 * nothing; two approvers of the shop race, one through the approval API and
 * one through the desk: one decides. The stream resumed with
 * `Last-Event-ID` sees the rest to `run:end`, each seq once; the refund ran
 * once, the audit holds the approval and the execution once, the session
 * holds the answer and is free for the next message.
 */
export async function refundThroughApi({
  api,
  world,
  tag,
  whileWaiting,
}: {
  api: EngineApi;
  world: ArbiterWorld;
  tag: string;
  whileWaiting: () => Promise<void>;
}): Promise<void> {
  const created = await api.request('/v1/sessions', { method: 'POST' });
  expect(created.status).toBe(201);
  const sessionId = created.body.id as string;
  const posted = await api.request(`/v1/sessions/${sessionId}/messages`, {
    method: 'POST',
    body: { content: `[run ${tag}] Please refund SO20260901.` },
  });
  expect(posted.status).toBe(202);
  const runId = posted.body.runId as string;
  // One run per session at a time, as on a node.
  const second = await api.request(`/v1/sessions/${sessionId}/messages`, {
    method: 'POST',
    body: { content: 'And refund it twice.' },
  });
  expect(second).toMatchObject({ status: 409, body: { error: { code: 'run_active', activeRunId: runId } } });

  const untilApproval = await readSse({
    url: `${api.url}/v1/runs/${runId}/events`,
    token: apiTokens.alice,
    stopAfter: (event) => event.type === 'approval:required',
    timeoutMs: 120_000,
  });
  // The run's stop for the person may come in the same read (run:end awaiting_approval).
  const required = untilApproval.events.find((event) => event.type === 'approval:required') as
    | (ExternalEvent & { approvalId: string })
    | undefined;
  // What the stream carried, should it end elsewhere (a run that failed says how).
  if (required === undefined) {
    throw new Error(`the stream ended before the approval:\n${JSON.stringify(untilApproval.events, null, 1)}`);
  }
  const { approvalId } = required;

  await whileWaiting();

  // The desk lists it for the shop's approvers, not for another tenant's.
  const inbox = await api.request('/v1/desk/inbox', { token: apiTokens.staff2 });
  expect(JSON.stringify(inbox.body)).toContain(approvalId);
  const foreign = await api.request(`/v1/approvals/${approvalId}`, {
    token: apiTokens.mallory,
    method: 'POST',
    body: { decision: 'approve' },
  });
  expect(foreign.status).toBe(404);
  expect((await readSse({ url: `${api.url}/v1/runs/${runId}/events`, token: apiTokens.mallory })).status).toBe(404);

  const [byApi, byDesk] = await Promise.all([
    api.request(`/v1/approvals/${approvalId}`, {
      token: apiTokens.staff,
      method: 'POST',
      body: { decision: 'approve' },
    }),
    api.request('/v1/desk/decisions', {
      token: apiTokens.staff2,
      method: 'POST',
      body: { decision: 'approve', approvalIds: [approvalId] },
    }),
  ]);
  const deskResult = (byDesk.body.results as { ok: boolean; status?: number }[])[0];
  const outcomes = [byApi.status === 202 ? 'decided' : byApi.status, deskResult?.ok ? 'decided' : deskResult?.status];
  expect(outcomes.sort()).toEqual([409, 'decided'].sort());

  // The run stopped for the person (run:end awaiting_approval) and continues once decided: the client
  // reconnects with Last-Event-ID, as a browser's EventSource does, until the run's last end.
  const streamed = [...untilApproval.events];
  while (streamed.at(-1)?.type !== 'run:end' || isWaiting(streamed.at(-1))) {
    const rest = await readSse({
      url: `${api.url}/v1/runs/${runId}/events`,
      token: apiTokens.alice,
      lastEventId: streamed.at(-1)?.seq ?? 0,
      timeoutMs: 120_000,
    });
    expect(rest.status).toBe(200);
    streamed.push(...rest.events);
  }
  expect(streamed.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'completed' });
  const logged = await expectGaplessEvents(world, runId);
  expect(streamed.map((event) => event.seq)).toEqual(logged.map((event) => event.seq));

  expect(await world.query('SELECT key FROM $schema.effects')).toEqual([{ key: 'refund:SO20260901' }]);
  const approvals = await world.query<{ status: string; approver: string }>(
    'SELECT status, approver FROM $schema.approvals WHERE run_id = $1',
    [runId],
  );
  expect(approvals).toHaveLength(1);
  expect(approvals[0]?.status).toBe('approved');
  expect(await auditOf(world, runId, 'refund_order')).toEqual([
    { decision: 'approved', outcome: 'ok', approver: approvals[0]?.approver },
  ]);
  // The model was asked once per step, whatever restarted in between.
  expect((await modelCalls(world, tag)).map((call) => call.last_role)).toEqual(['user', 'tool', 'tool']);

  // Freed by the run's last step, just after its run:end is written.
  const session = await pollUntil(
    async () => {
      const read = await api.request(`/v1/sessions/${sessionId}`);
      return read.body.status === 'idle' ? read : undefined;
    },
    { what: `session ${sessionId} to be idle` },
  );
  expect(session.body).toMatchObject({ status: 'idle', activeRunId: null });
  expect(session.body.messages).toEqual([
    { role: 'user', content: `[run ${tag}] Please refund SO20260901.`, runId },
    { role: 'assistant', content: 'Refunded order SO20260901.', runId },
  ]);
  expect(await api.request(`/v1/runs/${runId}`)).toMatchObject({ body: { status: 'completed' } });
}

/**
 * A customer's note asked through `useChat` (the AI SDK's transport against
 * `POST /v1/chat`), as today on a node: the run executes in the engine and
 * the chat's stream carries its tool calls and its answer to the end.
 */
export async function noteThroughUseChat({ api, world, tag }: { api: EngineApi; world: ArbiterWorld; tag: string }) {
  const transport = new DefaultChatTransport<UIMessage>({
    api: `${api.url}/v1/chat`,
    headers: { authorization: `Bearer ${apiTokens.alice}` },
  });
  const stream = await transport.sendMessages({
    chatId: `chat-${tag}`,
    messages: [
      {
        id: 'u1',
        role: 'user',
        parts: [{ type: 'text', text: `[run ${tag}] Please put a gift wrap note on SO20260902.` }],
      },
    ],
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  });
  const message = await messageOf(await chunksOf(stream));
  expect(message.metadata).toMatchObject({ stopReason: 'completed' });
  expect(message.parts.filter((part) => part.type.startsWith('tool-')).map((part) => part.type)).toEqual([
    'tool-query_order',
    'tool-add_order_note',
  ]);
  expect(message.parts.filter((part) => part.type === 'text').map((part) => (part as { text: string }).text)).toEqual([
    'Noted gift wrap on SO20260902.',
  ]);
  expect(await world.query('SELECT key FROM $schema.effects WHERE key LIKE $1', ['note:%'])).toEqual([
    { key: 'note:SO20260902:gift wrap' },
  ]);
}
