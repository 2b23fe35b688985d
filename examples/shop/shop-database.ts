import Database from 'better-sqlite3';
import { shopSeed } from './shop-seed.js';

export type OrderStatus = 'pending' | 'paid' | 'shipped' | 'delivered' | 'cancelled';
export type RefundStatus = 'processing' | 'completed' | 'rejected';

export interface OrderRow {
  readonly order_id: string;
  readonly customer_id: string;
  readonly status: OrderStatus;
  readonly total_cents: number;
  readonly placed_at: string;
  readonly recipient_name: string;
  readonly recipient_phone: string;
  readonly shipping_address: string;
}

export interface OrderItemRow {
  readonly sku: string;
  readonly title: string;
  readonly quantity: number;
  readonly unit_price_cents: number;
}

export interface ShipmentRow {
  readonly carrier: string;
  readonly tracking_number: string;
  readonly shipped_at: string;
  readonly delivered_at: string | null;
}

export interface ShipmentEventRow {
  readonly at: string;
  readonly location: string;
  readonly description: string;
}

export interface RefundRow {
  readonly refund_no: string;
  readonly order_id: string;
  readonly amount_cents: number;
  readonly reason_category: string;
  readonly reason: string;
  readonly status: RefundStatus;
  readonly requested_at: string;
  readonly completed_at: string | null;
}

export interface NewRefund {
  readonly orderId: string;
  readonly amountCents: number;
  readonly reasonCategory: string;
  readonly reason: string;
  readonly requestedAt: string;
}

const schema = `
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

/**
 * The demo shop's data: customers, orders, shipments, refunds and order
 * notes, in SQLite. Money is integer cents (fen) everywhere. The tools in
 * `shop-tools.ts` are its only callers; every query takes the customer id so
 * that "not yours" and "does not exist" look the same from outside.
 *
 * @example
 * const database = openShopDatabase({ path: ':memory:' });
 * database.findOrder({ customerId: 'C1001', orderId: 'SO20260901' })?.status; // 'shipped'
 */
export class ShopDatabase {
  readonly connection: Database.Database;

  constructor(connection: Database.Database) {
    this.connection = connection;
  }

  /** The order if it exists and belongs to the customer, otherwise undefined. */
  findOrder({ customerId, orderId }: { customerId: string; orderId: string }): OrderRow | undefined {
    return this.connection
      .prepare<[string, string], OrderRow>(
        `SELECT o.order_id, o.customer_id, o.status, o.total_cents, o.placed_at,
                c.name AS recipient_name, c.phone AS recipient_phone, c.address AS shipping_address
         FROM orders o JOIN customers c ON c.customer_id = o.customer_id
         WHERE o.order_id = ? AND o.customer_id = ?`,
      )
      .get(orderId, customerId);
  }

  listOrderItems({ orderId }: { orderId: string }): OrderItemRow[] {
    return this.connection
      .prepare<[string], OrderItemRow>(
        'SELECT sku, title, quantity, unit_price_cents FROM order_items WHERE order_id = ? ORDER BY line',
      )
      .all(orderId);
  }

  findShipment({ orderId }: { orderId: string }): ShipmentRow | undefined {
    return this.connection
      .prepare<[string], ShipmentRow>(
        'SELECT carrier, tracking_number, shipped_at, delivered_at FROM shipments WHERE order_id = ?',
      )
      .get(orderId);
  }

  listShipmentEvents({ orderId }: { orderId: string }): ShipmentEventRow[] {
    return this.connection
      .prepare<[string], ShipmentEventRow>(
        'SELECT at, location, description FROM shipment_events WHERE order_id = ? ORDER BY sequence',
      )
      .all(orderId);
  }

  listRefunds({ orderId }: { orderId: string }): RefundRow[] {
    return this.connection
      .prepare<[string], RefundRow>('SELECT * FROM refunds WHERE order_id = ? ORDER BY refund_no')
      .all(orderId);
  }

  /** The refund if it exists and its order belongs to the customer, otherwise undefined. */
  findRefund({ customerId, refundNo }: { customerId: string; refundNo: string }): RefundRow | undefined {
    return this.connection
      .prepare<[string, string], RefundRow>(
        `SELECT r.* FROM refunds r JOIN orders o ON o.order_id = r.order_id
         WHERE r.refund_no = ? AND o.customer_id = ?`,
      )
      .get(refundNo, customerId);
  }

  /** Cents already refunded or on their way back; rejected refunds do not count. */
  refundedCents({ orderId }: { orderId: string }): number {
    const row = this.connection
      .prepare<[string], { refunded: number }>(
        "SELECT COALESCE(SUM(amount_cents), 0) AS refunded FROM refunds WHERE order_id = ? AND status != 'rejected'",
      )
      .get(orderId);
    return row?.refunded ?? 0;
  }

  /**
   * Records a refund with the next refund number. Runs inside the caller's
   * transaction when there is one, so a check-then-insert stays atomic.
   */
  insertRefund({ orderId, amountCents, reasonCategory, reason, requestedAt }: NewRefund): RefundRow {
    const last = this.connection
      .prepare<[], { refund_no: string }>('SELECT refund_no FROM refunds ORDER BY refund_no DESC LIMIT 1')
      .get();
    const refundNo = `RF${String(Number(last?.refund_no.slice(2) ?? '2026090000') + 1).padStart(10, '0')}`;
    const refund: RefundRow = {
      refund_no: refundNo,
      order_id: orderId,
      amount_cents: amountCents,
      reason_category: reasonCategory,
      reason,
      status: 'processing',
      requested_at: requestedAt,
      completed_at: null,
    };
    this.connection
      .prepare(
        `INSERT INTO refunds (refund_no, order_id, amount_cents, reason_category, reason, status, requested_at, completed_at)
         VALUES (@refund_no, @order_id, @amount_cents, @reason_category, @reason, @status, @requested_at, @completed_at)`,
      )
      .run(refund);
    return refund;
  }

  /** Adds a note and returns how many notes the order now has. */
  insertOrderNote({ orderId, note, createdAt }: { orderId: string; note: string; createdAt: string }): number {
    this.connection
      .prepare('INSERT INTO order_notes (order_id, note, created_at) VALUES (?, ?, ?)')
      .run(orderId, note, createdAt);
    const row = this.connection
      .prepare<[string], { count: number }>('SELECT COUNT(*) AS count FROM order_notes WHERE order_id = ?')
      .get(orderId);
    return row?.count ?? 0;
  }

  listOrderNotes({ orderId }: { orderId: string }): { note: string; created_at: string }[] {
    return this.connection
      .prepare<[string], { note: string; created_at: string }>(
        'SELECT note, created_at FROM order_notes WHERE order_id = ? ORDER BY rowid',
      )
      .all(orderId);
  }

  /** Runs `work` in one transaction: all of it happens or none of it does. */
  transaction<Result>(work: () => Result): Result {
    return this.connection.transaction(work)();
  }

  close(): void {
    this.connection.close();
  }
}

/**
 * Opens (and on first run creates and seeds) the demo shop's SQLite database.
 * Seeding is idempotent: rows are keyed by their business ids, so opening an
 * existing file again changes nothing. Use `':memory:'` in tests.
 *
 * @example
 * const database = openShopDatabase({ path: '.arbiter/shop.db' });
 * const tools = createShopTools({ database });
 */
export function openShopDatabase({ path }: { path: string }): ShopDatabase {
  const connection = new Database(path);
  if (path !== ':memory:') connection.pragma('journal_mode = WAL');
  connection.pragma('foreign_keys = ON');
  connection.exec(schema);
  seed(connection);
  return new ShopDatabase(connection);
}

function seed(connection: Database.Database): void {
  const insert = (table: string, row: Record<string, unknown>) => {
    const columns = Object.keys(row);
    connection
      .prepare(
        `INSERT OR IGNORE INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((column) => `@${column}`).join(', ')})`,
      )
      .run(row);
  };
  connection.transaction(() => {
    for (const row of shopSeed.customers) insert('customers', row);
    for (const row of shopSeed.orders) insert('orders', row);
    for (const row of shopSeed.orderItems) insert('order_items', row);
    for (const row of shopSeed.shipments) insert('shipments', row);
    for (const row of shopSeed.shipmentEvents) insert('shipment_events', row);
    for (const row of shopSeed.refunds) insert('refunds', row);
  })();
}
