import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTierGate,
  type Principal,
  type RunResult,
  resumeAfterApproval,
  runAgent,
  runSession,
  ToolRegistry,
} from '@arbiter-runtime/core';
import {
  openSqliteStore,
  SqliteApprovalBroker,
  SqliteAuditLog,
  SqliteIdempotencyStore,
  SqliteSessionStore,
} from '@arbiter-runtime/core/sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { runServe } from '../../src/cli/commands/serve.js';
import {
  type NeutralTurn,
  type ProviderUnderTest,
  providerCases,
} from '../../src/models/test-support/ai-sdk-providers.js';
import { demoTokens } from '../../src/server/auth-config.js';
import type { AssembledServer } from '../../src/server/create-server.js';
import type { RunningServer } from '../../src/server/start-server.js';
import { openShopDatabase } from './shop-database.js';
import { openShopDomain } from './shop-domain.js';

const customer: Principal = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] };
const request =
  'Where is my order 12345? The email calls it SO20260901. And the glass teapot from SO20260902 arrived cracked: please refund its 200.00 yuan.';

/** The shop demo's flow, as the provider's model says it: a wrong order number, corrected, then a large refund. */
const shopTurns: readonly NeutralTurn[] = [
  { thinking: 'The customer wrote 12345; look that up.', calls: [{ name: 'query_order', input: { order_id: 12345 } }] },
  {
    thinking: 'arbiter says SO plus 8 digits: the email number SO20260901.',
    calls: [{ name: 'query_order', input: { order_id: 'SO20260901' } }],
  },
  {
    thinking: 'Now the teapot refund: 20000 cents.',
    text: 'Your order has shipped. Now the teapot.',
    calls: [
      {
        name: 'apply_refund',
        input: {
          order_id: 'SO20260902',
          amount_cents: 20000,
          reason_category: 'damaged',
          reason: 'The glass teapot arrived cracked.',
        },
      },
    ],
  },
  { text: 'Your order SO20260901 has shipped, and the 200.00 yuan for the teapot is refunded.' },
];

const fixedNow = () => new Date('2026-09-04T08:00:00Z');
let provider: ProviderUnderTest | undefined;
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await provider?.close();
  provider = undefined;
});

/** The shop's tools, gate rules and SQLite stores, as the demo wires them. */
function openShop() {
  const shop = openShopDomain({ dataDir: ':memory:', now: fixedNow });
  const store = openSqliteStore({ path: ':memory:' });
  cleanups.push(
    () => shop.close(),
    () => store.close(),
  );
  const tools = new ToolRegistry();
  for (const tool of shop.tools) tools.register(tool);
  const broker = new SqliteApprovalBroker({ database: store.database });
  const refundsOf = (orderId: string) =>
    shop.database.connection.prepare('SELECT refund_no FROM refunds WHERE order_id = ?').all(orderId);
  return {
    broker,
    sessions: new SqliteSessionStore({ database: store.database }),
    refundsOf,
    options: {
      tools,
      principal: customer,
      gate: createTierGate({ rules: shop.gateRules, tools, locale: 'en' }),
      approvals: broker,
      idempotency: new SqliteIdempotencyStore({ database: store.database }),
      audit: new SqliteAuditLog({ database: store.database }),
    },
  };
}

/** What the provider saw: arbiter's correction reached it, and every step went back with its thinking. */
function expectTheProviderSawTheFlow(running: ProviderUnderTest) {
  expect(running.refusals).toEqual([]);
  expect(running.requests).toHaveLength(4);
  const second = running.outline(1);
  expect(second).toContain('assistant calls query_order {"order_id":12345}');
  expect(second.find((line) => line.startsWith('result: '))).toMatch(
    /^result: The call to query_order was not run: 1 problem with its arguments\..*expected a string matching \^SO\\d\{8\}\$/s,
  );
  const last = running.outline(3);
  expect(last).toContain('assistant thinking: Now the teapot refund: 20000 cents.');
  expect(last.filter((line) => line.startsWith('assistant calls apply_refund'))).toHaveLength(1);
  expect(last.at(-1)).toMatch(/^result: .*"refund_no":"RF\d+"/);
}

describe.each(providerCases)('the shop demo on $label', ({ start, provider: providerName, spec }) => {
  it('runAgent: corrected call, refund held, approved by another person, run once', async () => {
    provider = await start(shopTurns);
    const shop = openShop();
    const before = shop.refundsOf('SO20260902').length;
    const first = await runAgent({
      ...shop.options,
      model: provider.model(),
      messages: [{ role: 'user', content: request }],
    });
    expect(first.stopReason).toBe('awaiting_approval');
    expect(shop.refundsOf('SO20260902')).toHaveLength(before);
    const [pending] = shop.broker.listApprovals({ runId: first.runId, status: 'pending' });
    expect(pending).toMatchObject({ tool: 'apply_refund', arguments: { amount_cents: 20000 } });
    shop.broker.resolveApproval({ approvalId: pending?.approvalId ?? '', decision: 'approve', approver: 'S9001' });

    const resume = (result: RunResult) =>
      runAgent({
        ...shop.options,
        // A new model object, as after a restart: the thinking travels in the messages.
        model: (provider as ProviderUnderTest).model(),
        messages: result.messages,
        runId: result.runId,
        resume: { steps: result.steps, usage: result.usage },
      });
    const second = await resume(first);
    expect(second.stopReason).toBe('completed');
    expect(second.text).toBe('Your order SO20260901 has shipped, and the 200.00 yuan for the teapot is refunded.');
    expect(shop.refundsOf('SO20260902')).toHaveLength(before + 1);
    expectTheProviderSawTheFlow(provider);
    expect(second.usage.inputTokens).toBeGreaterThan(first.usage.inputTokens);
    expect(providerName).toBe(provider.provider);
  });

  it('runAgent: a brake stops a model that keeps sending the same broken call', async () => {
    const broken: NeutralTurn = { calls: [{ name: 'query_order', input: { order_id: 12345 } }] };
    provider = await start([broken, broken, broken, broken, { text: 'never asked for' }]);
    const shop = openShop();
    const result = await runAgent({
      ...shop.options,
      model: provider.model(),
      messages: [{ role: 'user', content: 'Where is my order 12345?' }],
    });
    expect(result.stopReason).toBe('tool_failures');
    expect(provider.requests.length).toBeLessThan(5);
    expect(provider.refusals).toEqual([]);
  });

  it('runSession: the stored session carries the thinking across the approval; a replayed resume refunds nothing twice', async () => {
    provider = await start(shopTurns);
    const shop = openShop();
    const before = shop.refundsOf('SO20260902').length;
    const session = await shop.sessions.create({ principal: customer });
    const first = await runSession({
      ...shop.options,
      sessions: shop.sessions,
      sessionId: session.id,
      model: provider.model(),
      userMessage: request,
    });
    expect(first.stopReason).toBe('awaiting_approval');
    const stored = await shop.sessions.load(session.id);
    expect(
      stored?.messages.flatMap((message) => (message.role === 'assistant' ? (message.thinking ?? []) : [])),
    ).toHaveLength(3);
    const [pending] = shop.broker.listApprovals({ runId: first.runId, status: 'pending' });
    const resumed = await resumeAfterApproval({
      ...shop.options,
      sessions: shop.sessions,
      broker: shop.broker,
      model: provider.model(),
      approvalId: pending?.approvalId ?? '',
      decision: 'approve',
      approver: 'S9001',
    });
    expect(resumed.status).toBe('resumed');
    expect(resumed.status === 'resumed' && resumed.result.stopReason).toBe('completed');
    expect(shop.refundsOf('SO20260902')).toHaveLength(before + 1);
    expectTheProviderSawTheFlow(provider);

    // The same approval again: refused, and the refund is not run a second time.
    await expect(
      resumeAfterApproval({
        ...shop.options,
        sessions: shop.sessions,
        broker: shop.broker,
        model: provider.model(),
        approvalId: pending?.approvalId ?? '',
        decision: 'approve',
        approver: 'S9001',
      }),
    ).rejects.toThrow();
    expect(shop.refundsOf('SO20260902')).toHaveLength(before + 1);
  });

  it('arbiter serve --model configured with ARBITER_PROVIDER: the same flow over HTTP, approved by the approver', async () => {
    provider = await start(shopTurns);
    const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-ai-sdk-serve-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    // AI SDK 6's providers by their short name; AI SDK 7's by package name (installed here under an alias).
    const packageName = spec === 'v3' ? `@ai-sdk/${providerName}` : `${providerName}-v4`;
    const lines: string[] = [];
    let running: RunningServer<AssembledServer> | undefined;
    const served = runServe({
      args: ['--port', '0', '--data-dir', dataDir, '--model', 'configured'],
      write: (line) => lines.push(line),
      environment: {
        ARBITER_PROVIDER: spec === 'v3' ? providerName : packageName,
        ARBITER_MODEL: provider.modelId,
        ARBITER_BASE_URL: provider.baseUrl,
        ARBITER_API_KEY: provider.apiKey,
      },
      onStarted: (started) => {
        running = started;
      },
    });
    while (running === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    const server = running;
    cleanups.push(async () => {
      await server.close();
      await served;
    });
    expect(lines).toContain(
      `arbiter serve: model ${provider.modelId} via ${packageName} (an AI SDK provider, not checked at start); failed calls retried with backoff`,
    );
    const call = async (path: string, token: string, body?: unknown) => {
      const response = await fetch(`${server.url}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, text: await response.text() };
    };
    const session = JSON.parse((await call('/v1/sessions', demoTokens.customer, {})).text) as { id: string };
    const sent = JSON.parse(
      (await call(`/v1/sessions/${session.id}/messages`, demoTokens.customer, { content: request })).text,
    ) as { runId: string };
    const events = (await call(`/v1/runs/${sent.runId}/events`, demoTokens.customer)).text;
    expect(events).toContain('"stopReason":"awaiting_approval"');
    const approvalId = /"approvalId":"(ap_[0-9a-f]+)"/.exec(events)?.[1] ?? '';
    // The customer cannot approve his own refund; the approver (another person) can.
    expect((await call(`/v1/approvals/${approvalId}`, demoTokens.customer, { decision: 'approve' })).status).toBe(403);
    expect((await call(`/v1/approvals/${approvalId}`, demoTokens.approver, { decision: 'approve' })).status).toBe(202);
    await server.server.idle();
    const shown = (await call(`/v1/sessions/${session.id}`, demoTokens.customer)).text;
    // The model's thinking and its signatures stay on the server: neither the session nor the events show them.
    for (const text of [shown, events]) {
      expect(text).not.toContain('Now the teapot refund');
      expect(text).not.toMatch(/"(thinking|provider_metadata|signature|thoughtSignature)"/);
    }
    const after = JSON.parse(shown) as {
      status: string;
      messages: { role: string; content: string | null }[];
    };
    expect(after.status).toBe('idle');
    expect(after.messages.at(-1)?.content).toBe(
      'Your order SO20260901 has shipped, and the 200.00 yuan for the teapot is refunded.',
    );
    expectTheProviderSawTheFlow(provider);
    // A second approval of the same call changes nothing.
    expect((await call(`/v1/approvals/${approvalId}`, demoTokens.approver, { decision: 'approve' })).status).toBe(409);
    const shopDatabase = openShopDatabase({ path: join(dataDir, 'shop.db') });
    try {
      const refunds = shopDatabase.connection
        .prepare('SELECT refund_no FROM refunds WHERE order_id = ? AND amount_cents = 20000')
        .all('SO20260902');
      expect(refunds).toHaveLength(1);
    } finally {
      shopDatabase.close();
    }
  });
});
