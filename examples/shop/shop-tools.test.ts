import {
  emptyCallHistory,
  FatalToolError,
  type Principal,
  RetryableToolError,
  type ToolContext,
  type ToolDefinition,
  ToolRegistry,
} from '@arbiter-runtime/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openShopDatabase, type ShopDatabase } from './shop-database.js';
import { createShopTools } from './shop-tools.js';

const alice: Principal = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] };
const fixedNow = new Date('2026-09-04T08:00:00Z');

let database: ShopDatabase;
let tools: Map<string, ToolDefinition>;

beforeEach(() => {
  database = openShopDatabase({ path: ':memory:' });
  tools = new Map(createShopTools({ database, now: () => fixedNow }).map((tool) => [tool.name, tool]));
});

afterEach(() => {
  database.close();
});

function contextFor(principal: Principal | undefined): ToolContext {
  return {
    runId: 'run-1',
    sessionId: undefined,
    step: 1,
    toolCallId: 'call-1',
    principal,
    signal: new AbortController().signal,
    locale: 'en',
    history: emptyCallHistory,
  };
}

/** Runs a tool the way the runtime does: bound parameters filled from the principal. */
async function run(
  name: string,
  args: Record<string, unknown>,
  { principal }: { principal: Principal | undefined } = { principal: alice },
) {
  const tool = tools.get(name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  const bound = principal === undefined ? {} : { tenant_id: principal.tenantId, user_id: principal.userId };
  return tool.execute({ ...args, ...bound }, contextFor(principal));
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the tool to throw');
}

async function retryable(promise: Promise<unknown>): Promise<RetryableToolError> {
  const error = await failure(promise);
  if (!RetryableToolError.isInstance(error)) throw error;
  return error;
}

async function fatal(promise: Promise<unknown>): Promise<FatalToolError> {
  const error = await failure(promise);
  if (!FatalToolError.isInstance(error)) throw error;
  return error;
}

describe('createShopTools', () => {
  it('returns the five tools with their side effects, groups, data scope and bound tenant_id and user_id', () => {
    const bound = { tenant_id: 'tenantId', user_id: 'userId' };
    const scope = 'tenant_user';
    expect(
      [...tools.values()].map((tool) => ({
        name: tool.name,
        sideEffect: tool.sideEffect,
        groups: tool.groups,
        scope: tool.dataScope,
        bound: tool.boundParameters,
      })),
    ).toEqual([
      { name: 'query_order', sideEffect: 'read', groups: ['lookup'], scope, bound },
      { name: 'track_shipment', sideEffect: 'read', groups: ['lookup'], scope, bound },
      { name: 'query_refund', sideEffect: 'read', groups: ['lookup'], scope, bound },
      { name: 'add_order_note', sideEffect: 'reversible', groups: ['act'], scope, bound },
      { name: 'apply_refund', sideEffect: 'irreversible', groups: ['act'], scope, bound },
    ]);
  });

  it('names a sibling tool in every description', () => {
    const names = [...tools.keys()];
    for (const tool of tools.values()) {
      const siblings = names.filter((name) => name !== tool.name && tool.description.includes(name));
      expect(siblings.length, tool.name).toBeGreaterThan(0);
    }
  });

  it('refuses every tool without a signed-in customer', async () => {
    for (const name of tools.keys()) {
      const error = await fatal(run(name, { order_id: 'SO20260901' }, { principal: undefined }));
      expect(error.code).toBe('unauthenticated');
    }
  });
});

describe('query_order', () => {
  it('returns the order with items, amounts in cents and the delivery address', async () => {
    expect(await run('query_order', { order_id: 'SO20260901' })).toMatchInlineSnapshot(`
      {
        "currency": "CNY",
        "items": [
          {
            "quantity": 1,
            "sku": "SKU-MOUSE-01",
            "title": "Wireless mouse",
            "unit_price_cents": 12900,
          },
        ],
        "order_id": "SO20260901",
        "placed_at": "2026-09-01T02:15:00Z",
        "recipient_name": "Alice Chen",
        "recipient_phone": "+86 138 0013 1001",
        "refundable_cents": 12900,
        "refunded_cents": 0,
        "shipping_address": "Room 1203, 88 Century Avenue, Pudong, Shanghai 200120",
        "status": "shipped",
        "total_cents": 12900,
      }
    `);
  });

  it('subtracts earlier refunds from the refundable amount', async () => {
    expect(await run('query_order', { order_id: 'SO20260902' })).toMatchObject({
      total_cents: 35_800,
      refunded_cents: 7_900,
      refundable_cents: 27_900,
    });
  });

  it('marks the contact fields it returns as sensitive', () => {
    expect(tools.get('query_order')?.sensitive).toEqual(['recipient_phone', 'shipping_address']);
  });

  it('rejects an unknown order number as not found, retryable', async () => {
    const error = await retryable(run('query_order', { order_id: 'SO20269999' }));
    expect(error.code).toBe('order_not_found');
    expect(error.field).toBe('order_id');
    expect(error.message).toMatchInlineSnapshot(
      `"No order SO20269999 was found for this customer. Check the order number with the customer ("SO" followed by 8 digits, e.g. SO20260901)."`,
    );
  });

  it("answers another customer's order exactly like a missing one, never revealing that it exists", async () => {
    const missing = await retryable(run('query_order', { order_id: 'SO20269999' }));
    const someoneElses = await retryable(run('query_order', { order_id: 'SO20260906' }));
    expect(someoneElses.code).toBe('order_not_found');
    expect(someoneElses.message).toBe(missing.message.replace('SO20269999', 'SO20260906'));
    expect(someoneElses.message).not.toMatch(/forbidden|another customer|belongs/i);
  });
});

describe('track_shipment', () => {
  it('returns carrier, tracking number and events oldest first', async () => {
    const result = await run('track_shipment', { order_id: 'SO20260901' });
    expect(result).toMatchObject({
      order_id: 'SO20260901',
      order_status: 'shipped',
      shipped: true,
      carrier: 'SF Express',
      tracking_number: 'SF1402938475610',
      delivered_at: null,
    });
    expect(result).toHaveProperty('events.length', 3);
    expect(result).toHaveProperty('events.2.location', 'Shanghai hub');
  });

  it('says so when the order has not shipped yet', async () => {
    expect(await run('track_shipment', { order_id: 'SO20260904' })).toEqual({
      order_id: 'SO20260904',
      order_status: 'paid',
      shipped: false,
      summary: 'The order has not shipped yet, so there is no tracking information.',
    });
  });

  it("treats another customer's order as not found", async () => {
    expect((await retryable(run('track_shipment', { order_id: 'SO20260906' }))).code).toBe('order_not_found');
  });
});

describe('query_refund', () => {
  it('lists the refunds of an order with what is still refundable', async () => {
    expect(await run('query_refund', { order_id: 'SO20260902' })).toEqual({
      order_id: 'SO20260902',
      refunds: [
        {
          refund_no: 'RF2026090001',
          order_id: 'SO20260902',
          amount_cents: 7_900,
          reason_category: 'damaged',
          status: 'completed',
          requested_at: '2026-08-29T02:00:00Z',
          completed_at: '2026-08-31T08:00:00Z',
        },
      ],
      refundable_cents: 27_900,
    });
  });

  it('finds one refund by its number', async () => {
    expect(await run('query_refund', { refund_no: 'RF2026090001' })).toHaveProperty('refunds.0.status', 'completed');
  });

  it("treats another customer's refund number as not found", async () => {
    const error = await retryable(run('query_refund', { refund_no: 'RF2026090002' }));
    expect(error.code).toBe('refund_not_found');
    expect(error.message).toContain('No refund RF2026090002 was found for this customer');
  });

  it('rejects a refund number that belongs to a different order than the one given', async () => {
    const error = await retryable(run('query_refund', { order_id: 'SO20260901', refund_no: 'RF2026090001' }));
    expect(error.code).toBe('refund_not_found');
  });

  it('asks for an order number or refund number when given neither', async () => {
    const error = await retryable(run('query_refund', {}));
    expect(error.code).toBe('missing_field');
    expect(error.message).toContain('order_id');
    expect(error.message).toContain('refund_no');
  });

  it("treats another customer's order as not found", async () => {
    expect((await retryable(run('query_refund', { order_id: 'SO20260907' }))).code).toBe('order_not_found');
  });
});

describe('add_order_note', () => {
  it('stores the note and counts the notes on the order', async () => {
    const note = 'Please leave the parcel at the building reception.';
    expect(await run('add_order_note', { order_id: 'SO20260901', note })).toEqual({
      order_id: 'SO20260901',
      note,
      created_at: '2026-09-04T08:00:00.000Z',
      notes_on_order: 1,
    });
    expect(database.listOrderNotes({ tenantId: 'shop', orderId: 'SO20260901' })).toEqual([
      { note, created_at: '2026-09-04T08:00:00.000Z' },
    ]);
  });

  it('refuses a cancelled order, not retryable', async () => {
    const error = await fatal(run('add_order_note', { order_id: 'SO20260905', note: 'Ring twice.' }));
    expect(error.code).toBe('order_cancelled');
  });

  it("writes nothing on another customer's order", async () => {
    expect((await retryable(run('add_order_note', { order_id: 'SO20260906', note: 'x' }))).code).toBe(
      'order_not_found',
    );
    expect(database.listOrderNotes({ tenantId: 'shop', orderId: 'SO20260906' })).toEqual([]);
  });
});

describe('apply_refund', () => {
  const refund = (args: Record<string, unknown>) =>
    run('apply_refund', { reason_category: 'damaged', reason: 'The handle is chipped.', ...args });

  it('records a refund with the next refund number and reports what remains', async () => {
    expect(await refund({ order_id: 'SO20260902', amount_cents: 7_900 })).toEqual({
      refund_no: 'RF2026090003',
      order_id: 'SO20260902',
      amount_cents: 7_900,
      reason_category: 'damaged',
      status: 'processing',
      requested_at: '2026-09-04T08:00:00.000Z',
      completed_at: null,
      remaining_refundable_cents: 20_000,
      expected: 'Back on the original payment method within 1-3 business days.',
    });
    expect(await run('query_refund', { order_id: 'SO20260902' })).toHaveProperty('refundable_cents', 20_000);
  });

  it('refunds a paid order that has not shipped', async () => {
    expect(await refund({ order_id: 'SO20260904', amount_cents: 4_550 })).toHaveProperty(
      'remaining_refundable_cents',
      0,
    );
  });

  it('rejects an amount above what is left, naming the maximum, retryable', async () => {
    const error = await retryable(refund({ order_id: 'SO20260902', amount_cents: 30_000 }));
    expect(error.code).toBe('amount_exceeds_refundable');
    expect(error.field).toBe('amount_cents');
    expect(error.message).toMatchInlineSnapshot(
      `"amount_cents 30000 is more than order SO20260902 can still refund: the maximum is 27900 (279.00 yuan). Use 27900 or less."`,
    );
    expect(database.listRefunds({ tenantId: 'shop', orderId: 'SO20260902' })).toHaveLength(1);
  });

  it('refuses a pending order, not retryable', async () => {
    const error = await fatal(refund({ order_id: 'SO20260903', amount_cents: 100 }));
    expect(error.code).toBe('order_not_paid');
    expect(error.message).toBe('Order SO20260903 has not been paid yet, so there is nothing to refund.');
  });

  it('refuses a cancelled order, not retryable', async () => {
    const error = await fatal(refund({ order_id: 'SO20260905', amount_cents: 100 }));
    expect(error.code).toBe('order_cancelled');
  });

  it('refuses an order refunded in full, not retryable', async () => {
    await refund({ order_id: 'SO20260904', amount_cents: 4_550 });
    const error = await fatal(refund({ order_id: 'SO20260904', amount_cents: 1 }));
    expect(error.code).toBe('order_fully_refunded');
  });

  it("treats another customer's order as not found and refunds nothing", async () => {
    const error = await retryable(refund({ order_id: 'SO20260906', amount_cents: 100 }));
    expect(error.code).toBe('order_not_found');
    expect(database.listRefunds({ tenantId: 'shop', orderId: 'SO20260906' })).toEqual([]);
  });

  it('takes the customer from the bound user_id, not from anything the model could send', async () => {
    const bob: Principal = { tenantId: 'shop', userId: 'C1002', roles: ['customer'] };
    const error = await retryable(
      run(
        'apply_refund',
        { order_id: 'SO20260902', amount_cents: 100, reason_category: 'other', reason: 'x' },
        { principal: bob },
      ),
    );
    expect(error.code).toBe('order_not_found');
  });
});

describe('tenants', () => {
  const mallory: Principal = { tenantId: 'other-shop', userId: 'C1001', roles: ['customer'] };

  it("finds nothing of tenant shop's customer C1001 for another tenant's C1001, in any tool, and writes nothing", async () => {
    const notFound = async (name: string, args: Record<string, unknown>) =>
      (await retryable(run(name, args, { principal: mallory }))).code;
    expect(await notFound('query_order', { order_id: 'SO20260901' })).toBe('order_not_found');
    expect(await notFound('track_shipment', { order_id: 'SO20260901' })).toBe('order_not_found');
    expect(await notFound('query_refund', { order_id: 'SO20260902' })).toBe('order_not_found');
    expect(await notFound('query_refund', { refund_no: 'RF2026090001' })).toBe('refund_not_found');
    expect(await notFound('add_order_note', { order_id: 'SO20260901', note: 'x' })).toBe('order_not_found');
    expect(
      await notFound('apply_refund', {
        order_id: 'SO20260901',
        amount_cents: 100,
        reason_category: 'other',
        reason: 'x',
      }),
    ).toBe('order_not_found');
    expect(database.listRefunds({ tenantId: 'shop', orderId: 'SO20260901' })).toEqual([]);
    expect(database.listOrderNotes({ tenantId: 'shop', orderId: 'SO20260901' })).toEqual([]);
  });

  it('serves each tenant its own C1001 when both have an order SO20260901, numbering refunds per tenant', async () => {
    database.seedTenant({
      tenantId: 'other-shop',
      data: {
        customers: [
          {
            customer_id: 'C1001',
            name: 'Mei Wang',
            phone: '+86 136 0000 0001',
            email: 'mei@example.com',
            address: 'Wuhan',
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
    expect(await run('query_order', { order_id: 'SO20260901' }, { principal: mallory })).toMatchObject({
      recipient_name: 'Mei Wang',
      total_cents: 5_000,
    });
    expect(await run('query_order', { order_id: 'SO20260901' })).toMatchObject({ recipient_name: 'Alice Chen' });
    const refund = { order_id: 'SO20260901', amount_cents: 2_000, reason_category: 'damaged', reason: 'Crushed.' };
    expect(await run('apply_refund', refund, { principal: mallory })).toMatchObject({
      refund_no: 'RF2026090001',
      remaining_refundable_cents: 3_000,
    });
    expect(await run('apply_refund', refund)).toMatchObject({
      refund_no: 'RF2026090003',
      remaining_refundable_cents: 10_900,
    });
  });
});

describe('openShopDatabase', () => {
  it('moves a database from before tenants into tenant shop, keeping its rows', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const Database = (await import('better-sqlite3')).default;
    const directory = mkdtempSync(join(tmpdir(), 'arbiter-shop-'));
    try {
      const path = join(directory, 'shop.db');
      const legacy = new Database(path);
      legacy.exec(beforeTenants);
      legacy.exec(`
        INSERT INTO customers VALUES ('C1001', 'Alice Chen', '+86 138 0013 1001', 'alice@example.com', 'Shanghai');
        INSERT INTO orders VALUES ('SO20260901', 'C1001', 'shipped', 12900, '2026-09-01T02:15:00Z');
        INSERT INTO refunds VALUES ('RF2026090009', 'SO20260901', 500, 'other', 'Late.', 'processing', '2026-09-03', NULL);
        INSERT INTO order_notes VALUES ('SO20260901', 'Ring twice.', '2026-09-03T00:00:00Z');
      `);
      legacy.close();
      const opened = openShopDatabase({ path });
      expect(opened.listOrderNotes({ tenantId: 'shop', orderId: 'SO20260901' })).toEqual([
        { note: 'Ring twice.', created_at: '2026-09-03T00:00:00Z' },
      ]);
      expect(opened.listRefunds({ tenantId: 'shop', orderId: 'SO20260901' }).map((row) => row.refund_no)).toEqual([
        'RF2026090009',
      ]);
      expect(opened.findOrder({ tenantId: 'shop', customerId: 'C1001', orderId: 'SO20260902' })?.status).toBe(
        'delivered',
      );
      expect(
        opened.connection
          .prepare("SELECT COUNT(*) AS count FROM sqlite_master WHERE name LIKE '%before_tenants'")
          .get(),
      ).toEqual({ count: 0 });
      expect(opened.connection.pragma('foreign_key_check')).toEqual([]);
      opened.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('seeds only once when opened again on the same file', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const directory = mkdtempSync(join(tmpdir(), 'arbiter-shop-'));
    try {
      const path = join(directory, 'shop.db');
      const first = openShopDatabase({ path });
      first.insertOrderNote({
        tenantId: 'shop',
        orderId: 'SO20260901',
        note: 'kept',
        createdAt: '2026-09-04T00:00:00Z',
      });
      first.close();
      const second = openShopDatabase({ path });
      const count = second.connection.prepare<[], { count: number }>('SELECT COUNT(*) AS count FROM orders').get();
      expect(count?.count).toBe(8);
      expect(second.listOrderNotes({ tenantId: 'shop', orderId: 'SO20260901' })).toHaveLength(1);
      expect(second.connection.pragma('journal_mode', { simple: true })).toBe('wal');
      second.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

/** The shop's schema before tenants, as databases created then have it. */
const beforeTenants = `
  CREATE TABLE IF NOT EXISTS customers (
    customer_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    phone TEXT NOT NULL,
    email TEXT NOT NULL,
    address TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS orders (
    order_id TEXT PRIMARY KEY,
    customer_id TEXT NOT NULL REFERENCES customers (customer_id),
    status TEXT NOT NULL CHECK (status IN ('pending', 'paid', 'shipped', 'delivered', 'cancelled')),
    total_cents INTEGER NOT NULL CHECK (total_cents >= 0),
    placed_at TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS order_items (
    order_id TEXT NOT NULL REFERENCES orders (order_id),
    line INTEGER NOT NULL,
    sku TEXT NOT NULL,
    title TEXT NOT NULL,
    quantity INTEGER NOT NULL CHECK (quantity > 0),
    unit_price_cents INTEGER NOT NULL CHECK (unit_price_cents >= 0),
    PRIMARY KEY (order_id, line)
  );
  CREATE TABLE IF NOT EXISTS shipments (
    order_id TEXT PRIMARY KEY REFERENCES orders (order_id),
    carrier TEXT NOT NULL,
    tracking_number TEXT NOT NULL,
    shipped_at TEXT NOT NULL,
    delivered_at TEXT
  );
  CREATE TABLE IF NOT EXISTS shipment_events (
    order_id TEXT NOT NULL REFERENCES shipments (order_id),
    sequence INTEGER NOT NULL,
    at TEXT NOT NULL,
    location TEXT NOT NULL,
    description TEXT NOT NULL,
    PRIMARY KEY (order_id, sequence)
  );
  CREATE TABLE IF NOT EXISTS refunds (
    refund_no TEXT PRIMARY KEY,
    order_id TEXT NOT NULL REFERENCES orders (order_id),
    amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
    reason_category TEXT NOT NULL,
    reason TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('processing', 'completed', 'rejected')),
    requested_at TEXT NOT NULL,
    completed_at TEXT
  );
  CREATE INDEX IF NOT EXISTS refunds_by_order ON refunds (order_id);
  CREATE TABLE IF NOT EXISTS order_notes (
    order_id TEXT NOT NULL REFERENCES orders (order_id),
    note TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
`;

describe('shop tools in Chinese', () => {
  /** A schema with every `description` removed: what is enforced, whatever the language. */
  function enforced(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(enforced);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== 'description')
        .map(([key, child]) => [key, enforced(child)]),
    );
  }

  it('describes every tool and parameter in Chinese and enforces exactly what the English tools enforce', () => {
    const database = openShopDatabase({ path: ':memory:' });
    const english = createShopTools({ database });
    const chinese = createShopTools({ database, locale: 'zh-CN' });
    expect(chinese.map((tool) => tool.name)).toEqual(english.map((tool) => tool.name));
    for (const [index, tool] of chinese.entries()) {
      expect(tool.description).toMatch(/[\u4e00-\u9fff]/);
      expect(enforced(tool.parameters)).toEqual(enforced(english[index]?.parameters));
      const properties = Object.values(
        (tool.parameters as { properties: Record<string, { description: string }> }).properties,
      );
      for (const property of properties) expect(property.description).toMatch(/[\u4e00-\u9fff]/);
    }
    const registry = new ToolRegistry();
    for (const tool of chinese) registry.register(tool);
    expect(registry.names).toHaveLength(5);
    database.close();
  });
});
