import { afterEach, describe, expect, it } from 'vitest';
import type { ExternalEvent } from '../events/external-event.js';
import type { Model } from '../models/model.js';
import { readSse } from './test-support/sse-client.js';
import { startTestServer, type TestServer, testMetricsToken, testTokens } from './test-support/test-server.js';

/** A model that answers only once `release` is called, so a run stays active as long as a test needs. */
function heldModel(): { model: Model; release: () => void } {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    release,
    model: {
      name: 'held',
      generate: async () => {
        await held;
        return {
          message: { role: 'assistant', content: 'Done.' },
          usage: { inputTokens: 1, outputTokens: 1 },
          finishReason: 'stop',
        };
      },
    },
  };
}

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function newSession(token: string = testTokens.alice): Promise<string> {
  const { status, body } = await (server as TestServer).request('/v1/sessions', { token, method: 'POST' });
  expect(status).toBe(201);
  return body.id as string;
}

async function send(sessionId: string, content: string, token: string = testTokens.alice) {
  return (server as TestServer).request(`/v1/sessions/${sessionId}/messages`, {
    token,
    method: 'POST',
    body: { content },
  });
}

async function follow(runId: string, lastEventId?: number): Promise<ExternalEvent[]> {
  const reading = await readSse({
    url: `${(server as TestServer).url}/v1/runs/${runId}/events`,
    token: testTokens.alice,
    ...(lastEventId === undefined ? {} : { lastEventId }),
  });
  return reading.events;
}

/** What the store holds for a session, to show a refused request changed nothing. */
async function snapshot(sessionId: string) {
  const session = await (server as TestServer).server.sessions.load(sessionId);
  return {
    version: session?.version,
    messages: session?.messages,
    status: session?.status,
    runs: (server as TestServer).server.runs.listForSession(sessionId).map((run) => run.runId),
  };
}

describe('createServer', () => {
  it('answers /healthz, and /metrics in Prometheus text with runs, tool calls, gate decisions and latencies', async () => {
    server = await startTestServer();
    expect(await server.request('/healthz')).toEqual({ status: 200, body: { ok: true } });
    const sessionId = await newSession();
    const { body } = await send(sessionId, 'Where is my order SO20260901?');
    await follow(body.runId as string);
    const metrics = await (
      await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${testMetricsToken}` } })
    ).text();
    expect(metrics).toContain('# TYPE arbiter_runs_total counter');
    expect(metrics).toContain('arbiter_runs_total{tenant="shop",stop_reason="completed"} 1');
    expect(metrics).toContain('arbiter_tool_calls_total{tenant="shop",tool="query_order",outcome="ok"} 1');
    expect(metrics).toContain('arbiter_gate_decisions_total{tenant="shop",decision="allowed"} 2');
    expect(metrics).toContain('# TYPE arbiter_run_duration_seconds histogram');
    expect(metrics).toMatch(/arbiter_tool_duration_seconds_bucket\{tenant="shop",tool="query_order",le="\+Inf"\} 1/);
    expect(metrics).toMatch(/arbiter_sse_delivery_seconds_count \d+/);
    expect(metrics).toMatch(
      /arbiter_http_request_duration_seconds_count\{method="POST",route="\/v1\/sessions",status="201"\} 1/,
    );
  });

  it('refuses /v1 without a valid bearer token with 401', async () => {
    server = await startTestServer();
    expect((await server.request('/v1/sessions', { method: 'POST' })).status).toBe(401);
    const wrong = await server.request('/v1/sessions', { method: 'POST', token: 'not-a-token' });
    expect(wrong).toEqual({
      status: 401,
      body: { error: { code: 'unauthenticated', message: 'a valid bearer token is required' } },
    });
  });

  it('binds a new session to the caller and shows it only to its owner and approvers of its tenant', async () => {
    server = await startTestServer();
    const sessionId = await newSession();
    const stored = await server.server.sessions.load(sessionId);
    expect({ tenantId: stored?.tenantId, userId: stored?.userId }).toEqual({ tenantId: 'shop', userId: 'C1001' });

    expect((await server.request(`/v1/sessions/${sessionId}`, { token: testTokens.alice })).status).toBe(200);
    expect((await server.request(`/v1/sessions/${sessionId}`, { token: testTokens.staff })).status).toBe(200);
    expect((await server.request(`/v1/sessions/${sessionId}`, { token: testTokens.bob })).status).toBe(404);
    const otherTenant = await server.request(`/v1/sessions/${sessionId}`, { token: testTokens.mallory });
    expect(otherTenant).toEqual({
      status: 404,
      body: { error: { code: 'not_found', message: `no session ${sessionId}` } },
    });
    expect((await send(sessionId, 'Where is my order?', testTokens.mallory)).status).toBe(404);
    expect((await server.request('/v1/sessions/no-such-session', { token: testTokens.alice })).status).toBe(404);
  });

  it('starts a run in the background (202), takes the principal from the token, never from the body', async () => {
    server = await startTestServer();
    const sessionId = await newSession();
    const { status, body } = await server.request(`/v1/sessions/${sessionId}/messages`, {
      token: testTokens.alice,
      method: 'POST',
      body: {
        content: 'Where is my order SO20260901?',
        userId: 'C1003',
        tenantId: 'other-shop',
        principal: { userId: 'C1003' },
      },
    });
    expect(status).toBe(202);
    const runId = body.runId as string;
    const events = await follow(runId);
    expect(events.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'completed' });
    expect(server.server.runs.find(runId)?.principal).toEqual({
      tenantId: 'shop',
      userId: 'C1001',
      roles: ['customer'],
    });

    const session = await server.request(`/v1/sessions/${sessionId}`, { token: testTokens.alice });
    expect(session.body).toMatchObject({ id: sessionId, status: 'idle', activeRunId: null, pendingApprovals: [] });
    expect(session.body.messages).toEqual([
      { role: 'user', content: 'Where is my order SO20260901?', runId },
      { role: 'assistant', content: expect.stringContaining('Your order SO20260901 is shipped'), runId },
    ]);
  });

  it('answers malformed JSON with 400 and the reason, and writes nothing', async () => {
    server = await startTestServer();
    const sessionId = await newSession();
    const before = await snapshot(sessionId);
    const malformed = await server.request(`/v1/sessions/${sessionId}/messages`, {
      token: testTokens.alice,
      method: 'POST',
      rawBody: '{"content": "Where is my order?"',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ code: 'invalid_json' });
    expect(String((malformed.body.error as { message: string }).message)).toMatch(/^request body is not valid JSON: /);

    const missing = await server.request(`/v1/sessions/${sessionId}/messages`, {
      token: testTokens.alice,
      method: 'POST',
      body: { text: 'hi' },
    });
    expect(missing).toEqual({
      status: 400,
      body: { error: { code: 'invalid_body', message: '"content" must be a non-empty string', field: 'content' } },
    });
    const badLocale = await server.request(`/v1/sessions/${sessionId}/messages`, {
      token: testTokens.alice,
      method: 'POST',
      body: { content: 'hi', locale: 'fr' },
    });
    expect(badLocale.status).toBe(400);
    const array = await server.request('/v1/sessions', { token: testTokens.alice, method: 'POST', rawBody: '[1,2]' });
    expect(array.body.error).toMatchObject({ code: 'invalid_body' });
    expect(await snapshot(sessionId)).toEqual(before);
  });

  it('answers a body over 32 KiB with 413 and writes nothing', async () => {
    server = await startTestServer();
    const sessionId = await newSession();
    const before = await snapshot(sessionId);
    const huge = await send(sessionId, 'x'.repeat(33 * 1024));
    expect(huge).toEqual({
      status: 413,
      body: { error: { code: 'body_too_large', message: 'request body is over 32768 bytes' } },
    });
    expect(await snapshot(sessionId)).toEqual(before);
  });

  it('answers unknown ids with 404', async () => {
    server = await startTestServer();
    expect((await send('missing-session', 'hi')).status).toBe(404);
    expect((await server.request('/v1/runs/missing-run', { token: testTokens.alice })).status).toBe(404);
    expect((await server.request('/v1/runs/missing-run/events', { token: testTokens.alice })).status).toBe(404);
    const approval = await server.request('/v1/approvals/ap_000000000000', {
      token: testTokens.staff,
      method: 'POST',
      body: { decision: 'approve' },
    });
    expect(approval.status).toBe(404);
    expect((await server.request('/v1/nothing', { token: testTokens.alice })).status).toBe(404);
  });

  it('answers a message while a run is active with 409 naming the run, and writes nothing', async () => {
    const { model, release } = heldModel();
    server = await startTestServer({ model });
    const sessionId = await newSession();
    const first = await send(sessionId, 'First question');
    expect(first.status).toBe(202);
    const before = await snapshot(sessionId);
    const second = await send(sessionId, 'Second question');
    expect(second.status).toBe(409);
    expect(second.body.error).toMatchObject({ code: 'run_active', activeRunId: first.body.runId });
    expect(await snapshot(sessionId)).toEqual(before);
    release();
    await server.server.idle();
    expect((await send(sessionId, 'Third question')).status).toBe(202);
  });

  it('answers 409 for a session whose run waits for approval, and resumes it on the same stream once approved', async () => {
    server = await startTestServer();
    const sessionId = await newSession();
    const { body } = await send(sessionId, 'My teapot arrived cracked, I want a refund.');
    const runId = body.runId as string;
    const first = await follow(runId);
    expect(first.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'awaiting_approval' });
    const required = first.find((event) => event.type === 'approval:required');
    expect(required).toMatchObject({
      tool: 'apply_refund',
      arguments: { order_id: 'SO20260902', amount_cents: 20000, reason_category: 'damaged' },
    });
    const approvalId = (required as { approvalId: string }).approvalId;

    const before = await snapshot(sessionId);
    const blocked = await send(sessionId, 'Hello?');
    expect(blocked.status).toBe(409);
    expect(blocked.body.error).toMatchObject({ code: 'run_active', activeRunId: runId });
    expect(await snapshot(sessionId)).toEqual(before);
    const pending = await server.request(`/v1/sessions/${sessionId}`, { token: testTokens.alice });
    expect(pending.body.pendingApprovals).toEqual([
      expect.objectContaining({ approvalId, tool: 'apply_refund', reason: expect.stringContaining('200.00') }),
    ]);

    const customer = await server.request(`/v1/approvals/${approvalId}`, {
      token: testTokens.alice,
      method: 'POST',
      body: { decision: 'approve' },
    });
    expect(customer.status).toBe(403);
    const otherTenant = await server.request(`/v1/approvals/${approvalId}`, {
      token: testTokens.mallory,
      method: 'POST',
      body: { decision: 'approve' },
    });
    expect(otherTenant.status).toBe(404);
    const undecided = await server.request(`/v1/approvals/${approvalId}`, {
      token: testTokens.staff,
      method: 'POST',
      body: { decision: 'maybe' },
    });
    expect(undecided.status).toBe(400);

    const approved = await server.request(`/v1/approvals/${approvalId}`, {
      token: testTokens.staff,
      method: 'POST',
      body: { decision: 'approve', reason: 'Photo of the crack attached.' },
    });
    expect(approved).toEqual({
      status: 202,
      body: { approvalId, decision: 'approved', runId, pending: 0, resumed: true },
    });
    const again = await server.request(`/v1/approvals/${approvalId}`, {
      token: testTokens.staff,
      method: 'POST',
      body: { decision: 'reject' },
    });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'already_decided', status: 'approved' });

    const rest = await follow(runId, first.at(-1)?.seq);
    expect(rest[0]?.seq).toBe((first.at(-1)?.seq ?? 0) + 1);
    expect(rest.map((event) => event.type)).toContain('approval:resolved');
    expect(rest.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'completed' });
    const answer = rest
      .filter((event) => event.type === 'model:delta')
      .map((event) => (event.type === 'model:delta' ? event.text : ''))
      .join('');
    expect(answer).toMatch(/^Done: your refund RF\d{10} of 200\.00 yuan/);
  });

  it('tells the customer when the approver rejects, and nothing is refunded', async () => {
    server = await startTestServer();
    const sessionId = await newSession();
    const { body } = await send(sessionId, 'I want a refund for the cracked teapot.');
    const first = await follow(body.runId as string);
    const required = first.find((event) => event.type === 'approval:required') as { approvalId: string };
    const rejected = await server.request(`/v1/approvals/${required.approvalId}`, {
      token: testTokens.staff,
      method: 'POST',
      body: { decision: 'reject', reason: 'Outside the return window.' },
    });
    expect(rejected.body).toMatchObject({ decision: 'rejected', resumed: true });
    const rest = await follow(body.runId as string, first.at(-1)?.seq);
    expect(rest.find((event) => event.type === 'approval:resolved')).toMatchObject({ status: 'rejected' });
    expect(rest.some((event) => event.type === 'tool:start')).toBe(false);
    expect(rest.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'completed' });
  });

  it('hides runs and their streams from other tenants and other customers', async () => {
    server = await startTestServer();
    const sessionId = await newSession();
    const { body } = await send(sessionId, 'Where is my order?');
    const runId = body.runId as string;
    await follow(runId);
    for (const token of [testTokens.bob, testTokens.mallory]) {
      expect((await server.request(`/v1/runs/${runId}`, { token })).status).toBe(404);
      const stream = await readSse({ url: `${server.url}/v1/runs/${runId}/events`, token });
      expect(stream.status).toBe(404);
    }
    expect((await server.request(`/v1/runs/${runId}`, { token: testTokens.staff })).body).toMatchObject({
      runId,
      sessionId,
      status: 'completed',
    });
  });

  it('serves the chat page and, without an auth file, the demo tokens', async () => {
    server = await startTestServer();
    const page = await fetch(`${server.url}/`);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<script type="module" src="/chat.js"></script>');
    expect((await fetch(`${server.url}/chat.js`)).status).toBe(200);
    for (const icon of ['/favicon.ico', '/favicon.svg']) {
      const response = await fetch(`${server.url}${icon}`);
      expect([icon, response.status, response.headers.get('content-type')]).toEqual([icon, 200, 'image/svg+xml']);
      expect(await response.text()).toMatch(/^<svg /);
    }
    expect((await fetch(`${server.url}/demo.json`)).status).toBe(404);
    await server.stop();
    server = await startTestServer({ demoAuth: true });
    expect(await (await fetch(`${server.url}/demo.json`)).json()).toEqual({
      customerToken: 'demo-customer-token-this-machine-only',
      approverToken: 'demo-approver-token-this-machine-only',
    });
  });
});
