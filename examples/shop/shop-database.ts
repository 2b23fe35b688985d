import Database from 'better-sqlite3';
import { shopSeed, shopTenantId } from './shop-seed.js';

export type OrderStatus = 'pending' | 'paid' | 'shipped' | 'delivered' | 'cancelled';
export type RefundStatus = 'processing' | 'completed' | 'rejected';

export interface OrderRow {
  readonly tenant_id: string;
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
  readonly tenantId: string;
  readonly orderId: string;
  readonly amountCents: number;
  readonly reasonCategory: string;
  readonly reason: string;
  readonly requestedAt: string;
  /** The refund tool's idempotency key, recorded with the refund so an interrupted call can be reconciled. */
  readonly idempotencyKey?: string;
}

/** One tenant's order, as the lookups take it: the tenant, then the order number within it. */
export interface TenantOrder {
  readonly tenantId: string;
  readonly orderId: string;
}

/** The tables, in the order a tenant's data is inserted (parents first). */
const tables = [
  'customers',
  'orders',
  'order_items',
  'shipments',
  'shipment_events',
  'refunds',
  'order_notes',
] as const;

type ShopTable = (typeof tables)[number];

/**
 * Every row belongs to a tenant, and every key starts with it: order numbers,
 * customer ids and refund numbers are unique within a tenant only, so two
 * tenants may both have a customer C1001 and an order SO20260901.
 */
const schema = `
  CREATE TABLE IF NOT EXISTS customers (
    tenant_id TEXT NOT NULL,
    customer_id TEXT NOT NULL,
    name TEXT NOT NULL,
    phone TEXT NOT NULL,
    email TEXT NOT NULL,
    address TEXT NOT NULL,
    PRIMARY KEY (tenant_id, customer_id)
  );
  CREATE TABLE IF NOT EXISTS orders (
    tenant_id TEXT NOT NULL,
    order_id TEXT NOT NULL,
    customer_id TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'paid', 'shipped', 'delivered', 'cancelled')),
    total_cents INTEGER NOT NULL CHECK (total_cents >= 0),
    placed_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, order_id),
    FOREIGN KEY (tenant_id, customer_id) REFERENCES customers (tenant_id, customer_id)
  );
  CREATE INDEX IF NOT EXISTS orders_by_tenant_customer ON orders (tenant_id, customer_id);
  CREATE TABLE IF NOT EXISTS order_items (
    tenant_id TEXT NOT NULL,
    order_id TEXT NOT NULL,
    line INTEGER NOT NULL,
    sku TEXT NOT NULL,
    title TEXT NOT NULL,
    quantity INTEGER NOT NULL CHECK (quantity > 0),
    unit_price_cents INTEGER NOT NULL CHECK (unit_price_cents >= 0),
    PRIMARY KEY (tenant_id, order_id, line),
    FOREIGN KEY (tenant_id, order_id) REFERENCES orders (tenant_id, order_id)
  );
  CREATE TABLE IF NOT EXISTS shipments (
    tenant_id TEXT NOT NULL,
    order_id TEXT NOT NULL,
    carrier TEXT NOT NULL,
    tracking_number TEXT NOT NULL,
    shipped_at TEXT NOT NULL,
    delivered_at TEXT,
    PRIMARY KEY (tenant_id, order_id),
    FOREIGN KEY (tenant_id, order_id) REFERENCES orders (tenant_id, order_id)
  );
  CREATE TABLE IF NOT EXISTS shipment_events (
    tenant_id TEXT NOT NULL,
    order_id TEXT NOT NULL,
    sequence INTEGER NOT NULL,
    at TEXT NOT NULL,
    location TEXT NOT NULL,
    description TEXT NOT NULL,
    PRIMARY KEY (tenant_id, order_id, sequence),
    FOREIGN KEY (tenant_id, order_id) REFERENCES shipments (tenant_id, order_id)
  );
  CREATE TABLE IF NOT EXISTS refunds (
    tenant_id TEXT NOT NULL,
    refund_no TEXT NOT NULL,
    order_id TEXT NOT NULL,
    amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
    reason_category TEXT NOT NULL,
    reason TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('processing', 'completed', 'rejected')),
    requested_at TEXT NOT NULL,
    completed_at TEXT,
    idempotency_key TEXT,
    PRIMARY KEY (tenant_id, refund_no),
    FOREIGN KEY (tenant_id, order_id) REFERENCES orders (tenant_id, order_id)
  );
  CREATE INDEX IF NOT EXISTS refunds_by_tenant_order ON refunds (tenant_id, order_id);
  CREATE TABLE IF NOT EXISTS sent_mails (
    tenant_id TEXT NOT NULL,
    customer_id TEXT NOT NULL,
    order_id TEXT NOT NULL,
    recipient TEXT NOT NULL,
    body TEXT NOT NULL,
    sent_at TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS order_notes (
    tenant_id TEXT NOT NULL,
    order_id TEXT NOT NULL,
    note TEXT NOT NULL,
    created_at TEXT NOT NULL,
    FOREIGN KEY (tenant_id, order_id) REFERENCES orders (tenant_id, order_id)
  );
`;

/** The columns of each table besides `tenant_id`, as a database from before tenants has them. */
const legacyColumns: Readonly<Record<ShopTable, string>> = {
  customers: 'customer_id, name, phone, email, address',
  orders: 'order_id, customer_id, status, total_cents, placed_at',
  order_items: 'order_id, line, sku, title, quantity, unit_price_cents',
  shipments: 'order_id, carrier, tracking_number, shipped_at, delivered_at',
  shipment_events: 'order_id, sequence, at, location, description',
  refunds: 'refund_no, order_id, amount_cents, reason_category, reason, status, requested_at, completed_at',
  order_notes: 'order_id, note, created_at',
};

/** A tenant's starting data, table by table: rows without `tenant_id` (it is added when seeding). */
export type ShopSeedData = Partial<Record<ShopSeedTable, readonly Readonly<Record<string, unknown>>[]>>;

/** The seed's names of the tables. */
export type ShopSeedTable = 'customers' | 'orders' | 'orderItems' | 'shipments' | 'shipmentEvents' | 'refunds';

const seedTables: readonly (readonly [ShopSeedTable, ShopTable])[] = [
  ['customers', 'customers'],
  ['orders', 'orders'],
  ['orderItems', 'order_items'],
  ['shipments', 'shipments'],
  ['shipmentEvents', 'shipment_events'],
  ['refunds', 'refunds'],
];

/**
 * The demo shop's data: customers, orders, shipments, refunds and order
 * notes, in SQLite, each row keyed by its tenant. Money is integer cents
 * (fen) everywhere. The tools in `shop-tools.ts` are its only callers; every
 * lookup takes the tenant, and those that start from a customer's request
 * take the customer id too, so that "not yours" (another customer's, or
 * another tenant's) and "does not exist" look the same from outside.
 *
 * @example
 * const database = openShopDatabase({ path: ':memory:' });
 * database.findOrder({ tenantId: 'shop', customerId: 'C1001', orderId: 'SO20260901' })?.status; // 'shipped'
 * database.findOrder({ tenantId: 'other', customerId: 'C1001', orderId: 'SO20260901' }); // undefined
 */
export class ShopDatabase {
  readonly connection: Database.Database;

  /** Statements by their SQL, prepared on first use: preparing costs more than most of these queries. */
  readonly #statements = new Map<string, Database.Statement>();

  constructor(connection: Database.Database) {
    this.connection = connection;
  }

  #prepare<Parameters extends unknown[] = unknown[], Result = unknown>(
    sql: string,
  ): Database.Statement<Parameters, Result> {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.connection.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement as unknown as Database.Statement<Parameters, Result>;
  }

  /** The order if it exists in the tenant and belongs to the customer, otherwise undefined. */
  /** The customer's e-mail address on file, if the customer exists in the tenant. */
  customerEmail({ tenantId, customerId }: { tenantId: string; customerId: string }): string | undefined {
    return this.#prepare<[string, string], { email: string }>(
      'SELECT email FROM customers WHERE tenant_id = ? AND customer_id = ?',
    ).get(tenantId, customerId)?.email;
  }

  /** Records a mail as sent (the demo's outbox) and returns how many the customer has been sent. */
  recordMail(mail: {
    tenantId: string;
    customerId: string;
    orderId: string;
    recipient: string;
    body: string;
    sentAt: string;
  }): number {
    this.#prepare(
      `INSERT INTO sent_mails (tenant_id, customer_id, order_id, recipient, body, sent_at)
         VALUES (@tenantId, @customerId, @orderId, @recipient, @body, @sentAt)`,
    ).run(mail);
    return (
      this.#prepare<[string, string], { count: number }>(
        'SELECT COUNT(*) AS count FROM sent_mails WHERE tenant_id = ? AND customer_id = ?',
      ).get(mail.tenantId, mail.customerId)?.count ?? 0
    );
  }

  findOrder({
    tenantId,
    customerId,
    orderId,
  }: {
    tenantId: string;
    customerId: string;
    orderId: string;
  }): OrderRow | undefined {
    return this.#prepare<[string, string, string], OrderRow>(
      `SELECT o.tenant_id, o.order_id, o.customer_id, o.status, o.total_cents, o.placed_at,
                c.name AS recipient_name, c.phone AS recipient_phone, c.address AS shipping_address
         FROM orders o JOIN customers c ON c.tenant_id = o.tenant_id AND c.customer_id = o.customer_id
         WHERE o.tenant_id = ? AND o.customer_id = ? AND o.order_id = ?`,
    ).get(tenantId, customerId, orderId);
  }

  listOrderItems({ tenantId, orderId }: TenantOrder): OrderItemRow[] {
    return this.#prepare<[string, string], OrderItemRow>(
      `SELECT sku, title, quantity, unit_price_cents FROM order_items
         WHERE tenant_id = ? AND order_id = ? ORDER BY line`,
    ).all(tenantId, orderId);
  }

  findShipment({ tenantId, orderId }: TenantOrder): ShipmentRow | undefined {
    return this.#prepare<[string, string], ShipmentRow>(
      'SELECT carrier, tracking_number, shipped_at, delivered_at FROM shipments WHERE tenant_id = ? AND order_id = ?',
    ).get(tenantId, orderId);
  }

  listShipmentEvents({ tenantId, orderId }: TenantOrder): ShipmentEventRow[] {
    return this.#prepare<[string, string], ShipmentEventRow>(
      `SELECT at, location, description FROM shipment_events
         WHERE tenant_id = ? AND order_id = ? ORDER BY sequence`,
    ).all(tenantId, orderId);
  }

  listRefunds({ tenantId, orderId }: TenantOrder): RefundRow[] {
    return this.#prepare<[string, string], RefundRow>(
      `SELECT ${refundColumns} FROM refunds WHERE tenant_id = ? AND order_id = ? ORDER BY refund_no`,
    ).all(tenantId, orderId);
  }

  /** The refund recorded with this idempotency key in the tenant, if any: did an interrupted refund happen? */
  findRefundByKey({ tenantId, idempotencyKey }: { tenantId: string; idempotencyKey: string }): RefundRow | undefined {
    return this.#prepare<[string, string], RefundRow>(
      `SELECT ${refundColumns} FROM refunds WHERE tenant_id = ? AND idempotency_key = ? ORDER BY refund_no LIMIT 1`,
    ).get(tenantId, idempotencyKey);
  }

  /** The refund if it exists in the tenant and its order belongs to the customer, otherwise undefined. */
  findRefund({
    tenantId,
    customerId,
    refundNo,
  }: {
    tenantId: string;
    customerId: string;
    refundNo: string;
  }): RefundRow | undefined {
    return this.#prepare<[string, string, string], RefundRow>(
      `SELECT ${refundColumns.replace(/(\w+)/g, 'r.$1')} FROM refunds r
         JOIN orders o ON o.tenant_id = r.tenant_id AND o.order_id = r.order_id
         WHERE r.tenant_id = ? AND o.customer_id = ? AND r.refund_no = ?`,
    ).get(tenantId, customerId, refundNo);
  }

  /** Cents already refunded or on their way back; rejected refunds do not count. */
  refundedCents({ tenantId, orderId }: TenantOrder): number {
    const row = this.#prepare<[string, string], { refunded: number }>(
      `SELECT COALESCE(SUM(amount_cents), 0) AS refunded FROM refunds
         WHERE tenant_id = ? AND order_id = ? AND status != 'rejected'`,
    ).get(tenantId, orderId);
    return row?.refunded ?? 0;
  }

  /**
   * Records a refund with the tenant's next refund number. Runs inside the
   * caller's transaction when there is one, so a check-then-insert stays atomic.
   */
  insertRefund({
    tenantId,
    orderId,
    amountCents,
    reasonCategory,
    reason,
    requestedAt,
    idempotencyKey,
  }: NewRefund): RefundRow {
    const last = this.#prepare<[string], { refund_no: string }>(
      'SELECT refund_no FROM refunds WHERE tenant_id = ? ORDER BY refund_no DESC LIMIT 1',
    ).get(tenantId);
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
    this.#prepare(
      `INSERT INTO refunds (tenant_id, ${refundColumns}, idempotency_key)
         VALUES (@tenant_id, @refund_no, @order_id, @amount_cents, @reason_category, @reason, @status, @requested_at,
           @completed_at, @idempotency_key)`,
    ).run({ tenant_id: tenantId, ...refund, idempotency_key: idempotencyKey ?? null });
    return refund;
  }

  /** Adds a note and returns how many notes the order now has. */
  insertOrderNote({ tenantId, orderId, note, createdAt }: TenantOrder & { note: string; createdAt: string }): number {
    this.#prepare('INSERT INTO order_notes (tenant_id, order_id, note, created_at) VALUES (?, ?, ?, ?)').run(
      tenantId,
      orderId,
      note,
      createdAt,
    );
    const row = this.#prepare<[string, string], { count: number }>(
      'SELECT COUNT(*) AS count FROM order_notes WHERE tenant_id = ? AND order_id = ?',
    ).get(tenantId, orderId);
    return row?.count ?? 0;
  }

  /** Removes the latest note with exactly this text and time (the undo of `insertOrderNote`). */
  deleteOrderNote({ tenantId, orderId, note, createdAt }: TenantOrder & { note: string; createdAt: string }): void {
    this.#prepare(
      `DELETE FROM order_notes WHERE rowid = (
           SELECT rowid FROM order_notes WHERE tenant_id = ? AND order_id = ? AND note = ? AND created_at = ?
           ORDER BY rowid DESC LIMIT 1)`,
    ).run(tenantId, orderId, note, createdAt);
  }

  listOrderNotes({ tenantId, orderId }: TenantOrder): { note: string; created_at: string }[] {
    return this.#prepare<[string, string], { note: string; created_at: string }>(
      'SELECT note, created_at FROM order_notes WHERE tenant_id = ? AND order_id = ? ORDER BY rowid',
    ).all(tenantId, orderId);
  }

  /**
   * Adds a tenant's starting data; rows already there (same keys) are left
   * alone, so seeding again changes nothing.
   *
   * @example
   * database.seedTenant({ tenantId: 'other-shop', data: { customers: [...], orders: [...] } });
   */
  seedTenant({ tenantId, data }: { tenantId: string; data: ShopSeedData }): void {
    const insert = (table: ShopTable, row: Readonly<Record<string, unknown>>) => {
      const values = { ...row, tenant_id: tenantId };
      const columns = Object.keys(values);
      this.#prepare(
        `INSERT OR IGNORE INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((column) => `@${column}`).join(', ')})`,
      ).run(values);
    };
    this.transaction(() => {
      for (const [seedTable, table] of seedTables) for (const row of data[seedTable] ?? []) insert(table, row);
    });
  }

  /** Runs `work` in one transaction: all of it happens or none of it does. */
  transaction<Result>(work: () => Result): Result {
    return this.connection.transaction(work)();
  }

  close(): void {
    this.connection.close();
  }
}

const refundColumns = 'refund_no, order_id, amount_cents, reason_category, reason, status, requested_at, completed_at';

/**
 * Opens (and on first run creates and seeds) the demo shop's SQLite database;
 * the seed (`shopSeed`) is tenant `shop`'s data. Seeding is idempotent: rows
 * are keyed by tenant and business ids, so opening an existing file again
 * changes nothing. A file from before tenants is moved into tenant `shop`
 * (the only tenant the demo had). Use `':memory:'` in tests.
 *
 * @example
 * const database = openShopDatabase({ path: '.arbiter/shop.db' });
 * const tools = createShopTools({ database });
 */
export function openShopDatabase({ path }: { path: string }): ShopDatabase {
  const connection = new Database(path);
  if (path !== ':memory:') connection.pragma('journal_mode = WAL');
  moveIntoTenants(connection);
  connection.pragma('foreign_keys = ON');
  connection.exec(schema);
  addRefundKeys(connection);
  const database = new ShopDatabase(connection);
  database.seedTenant({ tenantId: shopTenantId, data: shopSeed });
  return database;
}

/** Rebuilds the tables of a database from before tenants with `tenant_id` first in every key; their rows become tenant `shop`'s. */
function moveIntoTenants(connection: Database.Database): void {
  const columns = connection.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('customers')").all();
  if (columns.length === 0 || columns.some((column) => column.name === 'tenant_id')) return;
  connection.pragma('foreign_keys = OFF');
  connection.transaction(() => {
    for (const table of tables) connection.exec(`ALTER TABLE ${table} RENAME TO ${table}_before_tenants`);
    connection.exec(schema);
    for (const table of tables) {
      connection
        .prepare(
          `INSERT INTO ${table} (tenant_id, ${legacyColumns[table]})
           SELECT ?, ${legacyColumns[table]} FROM ${table}_before_tenants`,
        )
        .run(shopTenantId);
    }
    for (const table of [...tables].reverse()) connection.exec(`DROP TABLE ${table}_before_tenants`);
  })();
}

/** Gives a refunds table from before reconciliation its idempotency key column, indexed per tenant. */
function addRefundKeys(connection: Database.Database): void {
  const columns = connection.prepare('PRAGMA table_info(refunds)').all() as { name: string }[];
  if (!columns.some((column) => column.name === 'idempotency_key')) {
    connection.exec('ALTER TABLE refunds ADD COLUMN idempotency_key TEXT');
  }
  connection.exec(
    `CREATE INDEX IF NOT EXISTS refunds_by_tenant_key ON refunds (tenant_id, idempotency_key)
       WHERE idempotency_key IS NOT NULL`,
  );
}
