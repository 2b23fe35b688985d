import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openShopDatabase } from '../../examples/shop/shop-database.js';
import type { ChatMessage } from '../core/chat-message.js';
import type { ExternalEvent } from '../events/external-event.js';
import type { Model } from '../models/model.js';
import { SqliteAuditLog } from '../store/sqlite/sqlite-audit-log.js';
import { type AuthConfig, demoAuthConfig, demoTokens } from './auth-config.js';
import { readSse } from './test-support/sse-client.js';
import {
  startTestServer,
  type TestServer,
  testAuth,
  testMetricsToken,
  testTokens,
} from './test-support/test-server.js';

/**
 * @module
 * Attacks through the real HTTP server. Each test that passes documents a
 * defence that holds; the model is a puppet that does whatever the user's
 * message (standing in for a prompt injection) tells it.
 */

type PuppetCall = { name: string; arguments: Record<string, unknown> | string };

/** The user's message is `{"calls": [...]}`; arguments given as a string go to the runtime verbatim. */
const puppetModel: Model = {
  name: 'puppet',
  generate: async ({ messages }) => {
    const usage = { inputTokens: 1, outputTokens: 1 };
    const last = messages.at(-1);
    if (last?.role === 'user') {
      const { calls } = JSON.parse(last.content) as { calls: PuppetCall[] };
      return {
        message: {
          role: 'assistant',
          content: null,
          tool_calls: calls.map((call) => ({
            id: `call_${randomUUID().slice(0, 8)}`,
            type: 'function' as const,
            function: {
              name: call.name,
              arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
            },
          })),
        },
        usage,
        finishReason: 'tool_calls',
      };
    }
    return { message: { role: 'assistant', content: toolResultsOfTurn(messages) }, usage, finishReason: 'stop' };
  },
};

function toolResultsOfTurn(messages: readonly ChatMessage[]): string {
  const lastUser = messages.findLastIndex((message) => message.role === 'user');
  return messages
    .slice(lastUser + 1)
    .flatMap((message) => (message.role === 'tool' ? [message.content] : []))
    .join('\n');
}

const extraTokens = {
  alice2: 'alice-second-device-token-0123456789abcdef',
  staff2: 'staff-second-device-token-0123456789abcdef',
  shopMetrics: 'shop-prometheus-token-0123456789abcdef',
  otherMetrics: 'other-prometheus-token-0123456789abcdef',
} as const;

/** The test principals, a second token for alice and for staff (same principals), and a metrics reader per tenant. */
const attackAuth: AuthConfig = {
  tokens: [
    ...testAuth.tokens,
    { token: extraTokens.alice2, tenantId: 'shop', userId: 'C1001', roles: ['customer'] },
    { token: extraTokens.staff2, tenantId: 'shop', userId: 'S9001', roles: ['approver'] },
    { token: extraTokens.shopMetrics, tenantId: 'shop', userId: 'prometheus', roles: ['metrics'] },
    { token: extraTokens.otherMetrics, tenantId: 'other-shop', userId: 'prometheus', roles: ['metrics'] },
  ],
};

const servers: TestServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const running of servers.splice(0)) await running.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function start(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const running = await startTestServer({ model: puppetModel, auth: attackAuth, ...options });
  servers.push(running);
  return running;
}

interface Turn {
  sessionId: string;
  runId: string;
  events: ExternalEvent[];
  answer: string;
  approvalIds: string[];
}

/** One turn: a session (new unless given), the calls as the message, the run read to its end. */
async function ask(
  running: TestServer,
  token: string,
  calls: readonly PuppetCall[],
  { sessionId: existing }: { sessionId?: string } = {},
): Promise<Turn> {
  let sessionId = existing;
  if (sessionId === undefined) {
    const created = await running.request('/v1/sessions', { token, method: 'POST' });
    expect(created.status).toBe(201);
    sessionId = created.body.id as string;
  }
  const sent = await running.request(`/v1/sessions/${sessionId}/messages`, {
    token,
    method: 'POST',
    body: { content: JSON.stringify({ calls }) },
  });
  expect(sent.status).toBe(202);
  const runId = sent.body.runId as string;
  const { events } = await readSse({ url: `${running.url}/v1/runs/${runId}/events`, token });
  const session = await running.request(`/v1/sessions/${sessionId}`, { token });
  const messages = (session.body.messages ?? []) as { role: string; content: string }[];
  return {
    sessionId,
    runId,
    events,
    answer: messages.findLast((message) => message.role === 'assistant')?.content ?? '',
    approvalIds: events.flatMap((event) =>
      event.type === 'approval:required' ? [(event as { approvalId: string }).approvalId] : [],
    ),
  };
}

const refund = (order: string, cents: number) => ({
  name: 'apply_refund',
  arguments: { order_id: order, amount_cents: cents, reason_category: 'damaged', reason: 'Arrived broken.' },
});

const lookup: PuppetCall = { name: 'query_order', arguments: { order_id: 'SO20260901' } };

function refundRows(dataDir: string): { tenant_id: string; order_id: string; amount_cents: number }[] {
  const shop = openShopDatabase({ path: join(dataDir, 'shop.db') });
  try {
    return shop.connection
      .prepare('SELECT tenant_id, order_id, amount_cents FROM refunds ORDER BY tenant_id, refund_no')
      .all() as { tenant_id: string; order_id: string; amount_cents: number }[];
  } finally {
    shop.close();
  }
}

function autoRefundsOk(running: TestServer): number {
  return new SqliteAuditLog({ database: running.server.store.database })
    .listAudit()
    .filter((row) => row.tool === 'apply_refund' && row.decision === 'auto_approved' && row.outcome === 'ok').length;
}

/** A raw HTTP/1.1 request (own Host header, own request target). */
function rawRequest({
  port,
  path,
  host,
  token,
}: {
  port: number;
  path: string;
  host: string;
  token?: string;
}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    const outgoing = httpRequest({ host: '127.0.0.1', port, path, method: 'GET', headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('another tenant, or another customer, cannot reach a run, its session or its approval', () => {
  it("answers mallory (other tenant's approver, same user id as alice) and bob exactly as for an id that does not exist", async () => {
    const running = await start();
    const turn = await ask(running, testTokens.alice, [refund('SO20260902', 6_000)]);
    expect(turn.events.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'awaiting_approval' });
    const [approvalId] = turn.approvalIds;
    expect(approvalId).toBeDefined();

    const probes = async (token: string, ids: { runId: string; sessionId: string; approvalId: string }) => ({
      run: await running.request(`/v1/runs/${ids.runId}`, { token }),
      events: await running.request(`/v1/runs/${ids.runId}/events`, { token, headers: { 'last-event-id': '0' } }),
      eventsQuery: await running.request(`/v1/runs/${ids.runId}/events?lastEventId=0`, { token }),
      session: await running.request(`/v1/sessions/${ids.sessionId}`, { token }),
      message: await running.request(`/v1/sessions/${ids.sessionId}/messages`, {
        token,
        method: 'POST',
        body: { content: JSON.stringify({ calls: [] }) },
      }),
      approve: await running.request(`/v1/approvals/${ids.approvalId}`, {
        token,
        method: 'POST',
        body: { decision: 'approve' },
      }),
    });
    const real = { runId: turn.runId, sessionId: turn.sessionId, approvalId: approvalId as string };
    const fake = { runId: randomUUID(), sessionId: randomUUID(), approvalId: randomUUID() };
    const strip = (answers: Awaited<ReturnType<typeof probes>>, ids: typeof real) =>
      JSON.parse(
        JSON.stringify(answers)
          .replaceAll(ids.runId, 'ID')
          .replaceAll(ids.sessionId, 'ID')
          .replaceAll(ids.approvalId, 'ID'),
      ) as unknown;

    for (const token of [testTokens.mallory, testTokens.bob]) {
      const onReal = await probes(token, real);
      for (const answer of [onReal.run, onReal.events, onReal.eventsQuery, onReal.session, onReal.message]) {
        expect(answer.status).toBe(404);
      }
      // An approver of another tenant: 404; a customer: 403 before any lookup.
      expect(onReal.approve.status).toBe(token === testTokens.mallory ? 404 : 403);
      expect(strip(onReal, real)).toEqual(strip(await probes(token, fake), fake));
    }
    const still = await running.request(`/v1/sessions/${turn.sessionId}`, { token: testTokens.staff });
    expect(still.body.pendingApprovals).toHaveLength(1);
    expect(refundRows(running.dataDir)).toHaveLength(2);
  });

  it("never lets a model's tenant_id or user_id reach shop's orders, however the arguments are spelled", async () => {
    const running = await start();
    const base = '"order_id":"SO20260902","amount_cents":1000,"reason_category":"damaged","reason":"x"';
    const attempts: PuppetCall[] = [
      { name: 'apply_refund', arguments: `{${base},"tenant_id":"other-shop","tenant_id":"shop","user_id":"C1001"}` },
      { name: 'apply_refund', arguments: `{${base},"__proto__":{"tenant_id":"shop"}}` },
      { name: 'apply_refund', arguments: `{${base},"tenant_id":["shop"],"user_id":"C1001"}` },
      { name: 'apply_refund', arguments: `{${base},"Tenant_Id":"shop"}` },
      { name: 'apply_refund', arguments: `{${base},"tenant_id":"shop\\u0000"}` },
      { name: 'query_order', arguments: '{"order_id":"SO20260901","tenant_id":"shop","user_id":"C1001"}' },
    ];
    const turn = await ask(running, testTokens.mallory, attempts);
    expect(turn.answer).not.toContain('Alice');
    expect(turn.answer).not.toContain('refund_no');
    expect(turn.approvalIds).toEqual([]);
    expect(refundRows(running.dataDir).filter((row) => row.tenant_id === 'shop')).toHaveLength(2);
    const audit = new SqliteAuditLog({ database: running.server.store.database }).listAudit();
    for (const row of audit) expect([row.tenantId, row.arguments.tenant_id]).toEqual(['other-shop', 'other-shop']);
  });

  it("keeps alice's injected refund of bob's order inside alice's own orders", async () => {
    const running = await start();
    const turn = await ask(running, testTokens.alice, [
      { name: 'apply_refund', arguments: { ...refund('SO20260906', 1_000).arguments, user_id: 'C1002' } },
      { name: 'query_order', arguments: { order_id: 'SO20260906', user_id: 'C1002' } },
    ]);
    expect(turn.answer.match(/order_not_found/g)).toHaveLength(2);
    expect(refundRows(running.dataDir)).toHaveLength(2);
  });
});

describe('four eyes cannot be dodged', () => {
  it('refuses mallory (customer and approver) deciding the approval of her own run', async () => {
    const running = await start();
    const turn = await ask(running, testTokens.mallory, [refund('SO20260901', 6_000)]);
    const [approvalId] = turn.approvalIds;
    for (const decision of ['approve', 'reject']) {
      const answer = await running.request(`/v1/approvals/${approvalId}`, {
        token: testTokens.mallory,
        method: 'POST',
        body: { decision },
      });
      expect(answer.status).toBe(403);
      expect(answer.body).toMatchObject({ error: { code: 'self_approval' } });
    }
  });

  it('refuses staff deciding his own request from a second session and with a second token of the same principal', async () => {
    const running = await start();
    const first = await ask(running, testTokens.staff, [refund('SO20260901', 6_000)]);
    // A second session of his, opened to decide from "somewhere else".
    const other = await running.request('/v1/sessions', { token: extraTokens.staff2, method: 'POST' });
    expect(other.status).toBe(201);
    for (const token of [testTokens.staff, extraTokens.staff2]) {
      const answer = await running.request(`/v1/approvals/${first.approvalIds[0]}`, {
        token,
        method: 'POST',
        body: { decision: 'approve' },
      });
      expect(answer.status).toBe(403);
      expect(answer.body).toMatchObject({ error: { code: 'self_approval' } });
    }
    const session = await running.request(`/v1/sessions/${first.sessionId}`, { token: testTokens.staff });
    expect(session.body.pendingApprovals).toHaveLength(1);
  });

  it('offers no HTTP route to fork or copy a session into another owner', async () => {
    const running = await start();
    const turn = await ask(running, testTokens.alice, [refund('SO20260902', 6_000)]);
    for (const path of [`/v1/sessions/${turn.sessionId}/fork`, `/v1/sessions/${turn.sessionId}/copy`]) {
      const answer = await running.request(path, { token: testTokens.staff, method: 'POST', body: {} });
      expect(answer.status).toBe(404);
    }
  });
});

describe('the cumulative automatic refund limit', () => {
  it('counts automatic refunds across sessions and a server restart on the same data directory', async () => {
    const first = await start();
    const dataDir = first.dataDir;
    const one = await ask(first, testTokens.alice, [refund('SO20260901', 4_000)]);
    expect(one.answer).toContain('refund_no');
    // Stop without removing the data, then serve the same directory again.
    servers.splice(servers.indexOf(first), 1);
    await first.close();
    dirs.push(dataDir);

    const second = await start({ dataDir });
    const two = await ask(second, extraTokens.alice2, [refund('SO20260902', 2_000)]);
    expect(two.events.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'awaiting_approval' });
    expect(two.approvalIds).toHaveLength(1);
    expect(refundRows(dataDir).filter((row) => row.tenant_id === 'shop')).toHaveLength(3);
  });

  it('is not dodged by respelling the order or the amount of an earlier refund', async () => {
    const running = await start();
    await ask(running, testTokens.alice, [refund('SO20260901', 4_000)]);
    const tail = '"reason_category":"damaged","reason":"again"';
    const respelled: PuppetCall[] = [
      { name: 'apply_refund', arguments: `{"order_id":"SO20260901","amount_cents":4000.0,${tail}}` },
      { name: 'apply_refund', arguments: `{"order_id":"SO20260901","amount_cents":4e3,${tail}}` },
      { name: 'apply_refund', arguments: `{"order_id":"SO20260901","amount_cents":"4000",${tail}}` },
      { name: 'apply_refund', arguments: `{"order_id":"so20260901","amount_cents":4000,${tail}}` },
      { name: 'apply_refund', arguments: `{"order_id":"SO20260901 ","amount_cents":4000,${tail}}` },
      { name: 'apply_refund', arguments: `{"order_id":"SO20260901\\n","amount_cents":4000,${tail}}` },
      { name: 'apply_refund', arguments: `{"order_id":"SO２０２６０９０１","amount_cents":4000,${tail}}` },
      { name: 'apply_refund', arguments: `{"order_id":"SO20260901","amount_cents":3999.9999999999995,${tail}}` },
    ];
    for (const call of respelled) await ask(running, testTokens.alice, [call]);
    // A different order, the amount spelled oddly: over the day's 50.00 yuan with the first refund.
    const over = await ask(running, testTokens.alice, [
      { name: 'apply_refund', arguments: `{"order_id":"SO20260902","amount_cents":1e3,${tail}}` },
    ]);
    expect(over.approvalIds).toHaveLength(1);
    expect(autoRefundsOk(running)).toBe(1);
    expect(refundRows(running.dataDir).filter((row) => row.tenant_id === 'shop')).toEqual([
      { tenant_id: 'shop', order_id: 'SO20260902', amount_cents: 7_900 },
      { tenant_id: 'shop', order_id: 'SO20260907', amount_cents: 7_900 },
      { tenant_id: 'shop', order_id: 'SO20260901', amount_cents: 4_000 },
    ]);
  });

  it('is not dodged by splitting one order into small refunds inside one run and across two concurrent sessions', async () => {
    const running = await start();
    const [a, b] = await Promise.all([
      ask(running, testTokens.alice, [refund('SO20260901', 2_000), refund('SO20260901', 2_001)]),
      ask(running, extraTokens.alice2, [refund('SO20260901', 2_002), refund('SO20260901', 2_003)]),
    ]);
    expect((a as Turn).approvalIds.length + (b as Turn).approvalIds.length).toBe(2);
    const automatic = refundRows(running.dataDir)
      .filter((row) => row.tenant_id === 'shop' && row.order_id === 'SO20260901')
      .reduce((sum, row) => sum + row.amount_cents, 0);
    expect(automatic).toBeLessThan(5_000);
  });
});

describe('per-principal limits are per principal, not per token', () => {
  it("shares one session budget between two tokens of the same principal, and keeps mallory's C1001 apart", async () => {
    const running = await start({ principalLimits: { sessionsPerMinute: 3, messagesPerMinute: 2 } });
    for (const token of [testTokens.alice, extraTokens.alice2, testTokens.alice]) {
      expect((await running.request('/v1/sessions', { token, method: 'POST' })).status).toBe(201);
    }
    const fourth = await running.request('/v1/sessions', { token: extraTokens.alice2, method: 'POST' });
    expect(fourth.status).toBe(429);
    expect(fourth.body).toMatchObject({ error: { code: 'too_many_sessions' } });
    expect((await running.request('/v1/sessions', { token: testTokens.mallory, method: 'POST' })).status).toBe(201);
  });

  it('shares the message budget between tokens of one principal', async () => {
    const running = await start({ principalLimits: { messagesPerMinute: 2 } });
    await ask(running, testTokens.alice, [lookup]);
    await ask(running, extraTokens.alice2, [lookup]);
    const session = await running.request('/v1/sessions', { token: extraTokens.alice2, method: 'POST' });
    const third = await running.request(`/v1/sessions/${session.body.id as string}/messages`, {
      token: extraTokens.alice2,
      method: 'POST',
      body: { content: JSON.stringify({ calls: [] }) },
    });
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({ error: { code: 'too_many_messages' } });
  });

  it('limits the public demo tokens too', async () => {
    const running = await startTestServer({ demoAuth: true, principalLimits: { sessionsPerMinute: 2 } });
    servers.push(running);
    for (let index = 0; index < 2; index += 1) {
      const created = await running.request('/v1/sessions', { token: demoTokens.customer, method: 'POST' });
      expect(created.status).toBe(201);
    }
    const third = await running.request('/v1/sessions', { token: demoTokens.customer, method: 'POST' });
    expect(third.status).toBe(429);
  });

  it('spends no stream slot on a refused stream (404, 400)', async () => {
    const running = await start({ principalLimits: { maxStreams: 1 } });
    const turn = await ask(running, testTokens.alice, [lookup]);
    const foreign = await ask(running, testTokens.mallory, [lookup]);
    for (let index = 0; index < 5; index += 1) {
      expect((await running.request(`/v1/runs/${foreign.runId}/events`, { token: testTokens.alice })).status).toBe(404);
      expect((await running.request(`/v1/runs/${randomUUID()}/events`, { token: testTokens.alice })).status).toBe(404);
      const bad = await running.request(`/v1/runs/${turn.runId}/events`, {
        token: testTokens.alice,
        headers: { 'last-event-id': '-1' },
      });
      expect(bad.status).toBe(400);
    }
    const { status } = await readSse({ url: `${running.url}/v1/runs/${turn.runId}/events`, token: testTokens.alice });
    expect(status).toBe(200);
  });
});

describe('the demo answers this machine only', () => {
  it.each([
    'localhost.',
    'LOCALHOST.',
    'localhost:8787@evil.example',
    'localhost:8787.evil.example',
    'localhost,evil.example',
    '[::ffff:127.0.0.1]',
    '[::1].evil.example',
    '127.1',
    '2130706433',
    '0x7f.0.0.1',
    '127.0.0.1:80:80',
    'localhost:',
  ])('refuses Host %j without a token in the answer', async (host) => {
    const running = await startTestServer({ demoAuth: true });
    servers.push(running);
    for (const path of ['/demo.json', '/v1/me']) {
      const answer = await rawRequest({ port: running.port, path, host, token: demoTokens.customer });
      expect(answer.status).not.toBe(200);
      expect(answer.text).not.toContain(demoTokens.customer);
      expect(answer.text).not.toContain(demoTokens.approver);
    }
  });

  it('refuses an absolute request target naming localhost when the Host header is foreign', async () => {
    const running = await startTestServer({ demoAuth: true });
    servers.push(running);
    for (const path of [`http://localhost:${running.port}/demo.json`, 'http://127.0.0.1/demo.json']) {
      const answer = await rawRequest({ port: running.port, path, host: 'evil.example' });
      expect(answer.status).not.toBe(200);
      expect(answer.text).not.toContain(demoTokens.approver);
    }
  });

  it("does not serve the published demo tokens to any Host when they are given as the server's auth", async () => {
    // An operator copies the demo's principals (tokens printed by `serve` and in the source) into an auth file.
    await expect(startTestServer({ auth: demoAuthConfig, host: '0.0.0.0' })).rejects.toThrow(
      /token is one of the public demo tokens/,
    );
  });
});

describe('/metrics keeps tenants apart', () => {
  it("shows other-shop's metrics reader nothing of shop's runs, and the scrape token opens no /v1 route", async () => {
    const running = await start();
    await ask(running, testTokens.alice, [refund('SO20260902', 6_000)]);
    await ask(running, testTokens.alice, [{ name: 'query_order', arguments: { order_id: 'SO20260901' } }]);
    const read = (token: string) =>
      fetch(`${running.url}/metrics`, { headers: { authorization: `Bearer ${token}` } }).then(async (response) => ({
        status: response.status,
        text: await response.text(),
      }));
    const other = await read(extraTokens.otherMetrics);
    expect(other.status).toBe(200);
    expect(other.text).not.toContain('tenant="shop"');
    expect(other.text).not.toContain('query_order');
    expect(other.text).not.toContain('apply_refund');
    const shop = await read(extraTokens.shopMetrics);
    expect(shop.text).toContain('tenant="shop"');
    expect((await running.request('/v1/me', { token: testMetricsToken })).status).toBe(401);
    // A metrics reader is no approver.
    const session = await ask(running, testTokens.alice, [refund('SO20260902', 6_100)]);
    const decided = await running.request(`/v1/approvals/${session.approvalIds[0]}`, {
      token: extraTokens.shopMetrics,
      method: 'POST',
      body: { decision: 'approve' },
    });
    expect(decided.status).toBe(403);
    expect(
      (await running.request(`/v1/sessions/${session.sessionId}`, { token: extraTokens.shopMetrics })).status,
    ).toBe(404);
  });
});
