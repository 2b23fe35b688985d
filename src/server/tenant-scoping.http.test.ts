import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openShopDatabase } from '../../examples/shop/shop-database.js';
import type { ChatMessage } from '../core/chat-message.js';
import type { Model } from '../models/model.js';
import { SqliteAuditLog } from '../store/sqlite/sqlite-audit-log.js';
import { readSse } from './test-support/sse-client.js';
import { startTestServer, type TestServer, testTokens } from './test-support/test-server.js';

/**
 * The attacker's model: the user's message is the JSON of the tool calls to
 * make (`{"calls": [{"name", "arguments"}]}`), arguments exactly as given,
 * identity fields included; once the results are in, it tells the customer
 * everything the tools returned, the way a model quotes what it read.
 */
const puppetModel: Model = {
  name: 'puppet',
  generate: async ({ messages }) => {
    const usage = { inputTokens: 1, outputTokens: 1 };
    const last = messages.at(-1);
    if (last?.role === 'user') {
      const { calls } = JSON.parse(last.content) as { calls: { name: string; arguments: unknown }[] };
      return {
        message: {
          role: 'assistant',
          content: null,
          tool_calls: calls.map((call) => ({
            id: `call_${randomUUID().slice(0, 8)}`,
            type: 'function' as const,
            function: { name: call.name, arguments: JSON.stringify(call.arguments) },
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

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function start(): Promise<TestServer> {
  server = await startTestServer({ model: puppetModel });
  return server;
}

/** One customer turn through HTTP: a new session, the calls as the message, the run followed to its end. */
async function ask(
  token: string,
  calls: readonly { name: string; arguments: Record<string, unknown> }[],
): Promise<{ runId: string; answer: string; stopReason: unknown }> {
  const running = server as TestServer;
  const created = await running.request('/v1/sessions', { token, method: 'POST' });
  expect(created.status).toBe(201);
  const sessionId = created.body.id as string;
  const sent = await running.request(`/v1/sessions/${sessionId}/messages`, {
    token,
    method: 'POST',
    body: { content: JSON.stringify({ calls }) },
  });
  expect(sent.status).toBe(202);
  const runId = sent.body.runId as string;
  const { events } = await readSse({ url: `${running.url}/v1/runs/${runId}/events`, token });
  const end = events.find((event) => event.type === 'run:end');
  const session = await running.request(`/v1/sessions/${sessionId}`, { token });
  const messages = session.body.messages as { role: string; content: string }[];
  return {
    runId,
    answer: messages.findLast((message) => message.role === 'assistant')?.content ?? '',
    stopReason: end === undefined ? undefined : (end as { stopReason?: unknown }).stopReason,
  };
}

const refundArguments = {
  order_id: 'SO20260901',
  amount_cents: 2_000,
  reason_category: 'damaged',
  reason: 'The box arrived crushed.',
};

/** Tenant `shop`'s refunds in the server's shop database. */
function shopRefunds(running: TestServer) {
  const shop = openShopDatabase({ path: join(running.dataDir, 'shop.db') });
  try {
    return shop.connection
      .prepare('SELECT tenant_id, refund_no, order_id, amount_cents FROM refunds ORDER BY tenant_id, refund_no')
      .all();
  } finally {
    shop.close();
  }
}

/** How many refunds the server's shop database holds, in all tenants. */
function refundCount(running: TestServer): number {
  const shop = openShopDatabase({ path: join(running.dataDir, 'shop.db') });
  try {
    return (shop.connection.prepare('SELECT COUNT(*) AS count FROM refunds').get() as { count: number }).count;
  } finally {
    shop.close();
  }
}

describe('tenant scoping through the HTTP API', () => {
  it("shows another tenant's customer C1001 none of shop's C1001 orders: no order, no address, no tracking number", async () => {
    await start();
    const { answer } = await ask(testTokens.mallory, [
      { name: 'query_order', arguments: { order_id: 'SO20260901' } },
      { name: 'track_shipment', arguments: { order_id: 'SO20260901' } },
      { name: 'query_refund', arguments: { refund_no: 'RF2026090001' } },
    ]);
    expect(answer).toContain('Error (order_not_found): No order SO20260901 was found for this customer.');
    expect(answer).toContain('Error (refund_not_found): No refund RF2026090001 was found for this customer.');
    for (const leaked of ['Alice Chen', 'Century Avenue', 'SF1402938475610', 'SF Express', '12900']) {
      expect(answer).not.toContain(leaked);
    }
    const alice = await ask(testTokens.alice, [{ name: 'track_shipment', arguments: { order_id: 'SO20260901' } }]);
    expect(alice.answer).toContain('SF1402938475610');
  });

  it("takes tenant_id and user_id from the token even when the model sends shop's, and refunds nothing", async () => {
    const running = await start();
    const { answer } = await ask(testTokens.mallory, [
      { name: 'query_order', arguments: { order_id: 'SO20260901', tenant_id: 'shop', user_id: 'C1001' } },
      {
        name: 'apply_refund',
        arguments: { ...refundArguments, amount_cents: 1_000, tenant_id: 'shop', user_id: 'C1001' },
      },
    ]);
    expect(answer.match(/Error \(order_not_found\)/g)).toHaveLength(2);
    expect(answer).not.toContain('Alice Chen');
    expect(answer).not.toContain('refund_no');
    expect(refundCount(running)).toBe(2);
  });

  it("never hands one customer's refund result to another tenant's C1001 or another user sending the same arguments", async () => {
    const running = await start();
    const first = await ask(testTokens.alice, [{ name: 'apply_refund', arguments: refundArguments }]);
    expect(first.answer).toContain('"refund_no":"RF2026090003"');
    expect(first.answer).toContain('"remaining_refundable_cents":10900');

    for (const token of [testTokens.mallory, testTokens.bob]) {
      const replayAttempt = await ask(token, [{ name: 'apply_refund', arguments: refundArguments }]);
      expect(replayAttempt.answer).toContain('Error (order_not_found)');
      expect(replayAttempt.answer).not.toContain('RF2026090003');
      expect(replayAttempt.answer).not.toContain('10900');
    }
    expect(shopRefunds(running)).toEqual([
      { tenant_id: 'shop', refund_no: 'RF2026090001', order_id: 'SO20260902', amount_cents: 7_900 },
      { tenant_id: 'shop', refund_no: 'RF2026090002', order_id: 'SO20260907', amount_cents: 7_900 },
      { tenant_id: 'shop', refund_no: 'RF2026090003', order_id: 'SO20260901', amount_cents: 2_000 },
    ]);
    const audit = new SqliteAuditLog({ database: running.server.store.database }).listAudit();
    expect(audit.map(({ tenantId, userId, outcome }) => [tenantId, userId, outcome])).toEqual([
      ['shop', 'C1001', 'ok'],
      ['other-shop', 'C1001', 'order_not_found'],
      ['shop', 'C1002', 'order_not_found'],
    ]);
  });

  it("replays a customer's own repeated refund, in a new session, and the audit row names the first call", async () => {
    const running = await start();
    const first = await ask(testTokens.alice, [{ name: 'apply_refund', arguments: refundArguments }]);
    const again = await ask(testTokens.alice, [
      { name: 'apply_refund', arguments: { ...refundArguments, reason: 'Crushed box, as I said.' } },
    ]);
    // The model reads the first refund, said as done before: not as made now.
    expect(JSON.parse(again.answer)).toEqual({
      already_done: expect.stringMatching(
        /^Exactly this apply_refund call already ran before, so it was not run again/,
      ),
      ...JSON.parse(first.answer),
    });
    expect(refundCount(running)).toBe(3);
    const [executed, replayed] = new SqliteAuditLog({ database: running.server.store.database }).listAudit();
    expect(executed?.outcome).toBe('ok');
    expect(replayed).toMatchObject({
      runId: again.runId,
      outcome: 'replayed:ok',
      tenantId: 'shop',
      userId: 'C1001',
      replayOf: { runId: first.runId, toolCallId: executed?.toolCallId },
    });
  });

  it('keeps the two tenants apart when both have a customer C1001 with an order SO20260901', async () => {
    const running = await start();
    const other = openShopDatabase({ path: join(running.dataDir, 'shop.db') });
    other.seedTenant({
      tenantId: 'other-shop',
      data: {
        customers: [
          {
            customer_id: 'C1001',
            name: 'Mei Wang',
            phone: '+86 136 0000 0001',
            email: 'mei.wang@example.com',
            address: '9 Jiefang Road, Wuhan',
          },
        ],
        orders: [
          {
            order_id: 'SO20260901',
            customer_id: 'C1001',
            status: 'paid',
            total_cents: 5_000,
            placed_at: '2026-09-02T10:00:00Z',
          },
        ],
      },
    });
    other.close();

    const theirs = await ask(testTokens.mallory, [{ name: 'query_order', arguments: { order_id: 'SO20260901' } }]);
    expect(theirs.answer).toContain('"recipient_name":"Mei Wang"');
    expect(theirs.answer).not.toContain('Alice Chen');

    const aliceRefund = await ask(testTokens.alice, [{ name: 'apply_refund', arguments: refundArguments }]);
    const meiRefund = await ask(testTokens.mallory, [{ name: 'apply_refund', arguments: refundArguments }]);
    expect(aliceRefund.answer).toContain('"remaining_refundable_cents":10900');
    expect(meiRefund.answer).toContain('"remaining_refundable_cents":3000');
    expect(meiRefund.answer).not.toContain('10900');
    expect(shopRefunds(running).filter((row) => (row as { order_id: string }).order_id === 'SO20260901')).toEqual([
      { tenant_id: 'other-shop', refund_no: 'RF2026090001', order_id: 'SO20260901', amount_cents: 2_000 },
      { tenant_id: 'shop', refund_no: 'RF2026090003', order_id: 'SO20260901', amount_cents: 2_000 },
    ]);
  });
});
