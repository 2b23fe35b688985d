/**
 * The tenant the demo shop's data belongs to (the demo's and the server's
 * tokens sign customers in as tenant `shop`).
 *
 * @example
 * database.findOrder({ tenantId: shopTenantId, customerId: 'C1001', orderId: 'SO20260901' });
 */
export const shopTenantId = 'shop';

/**
 * The demo shop's fixed starting data, seeded as tenant `shop` (rows carry
 * no tenant: `openShopDatabase` adds it). The demo script, the tests and the
 * README refer to these customers and order numbers, so change them together.
 *
 * | order      | customer | status    | total   | shipment / refunds                         |
 * | ---------- | -------- | --------- | ------- | ------------------------------------------ |
 * | SO20260901 | C1001    | shipped   | 129.00  | SF Express, in transit                     |
 * | SO20260902 | C1001    | delivered | 358.00  | JD Logistics; RF2026090001 79.00 completed |
 * | SO20260903 | C1001    | pending   | 89.90   | not paid yet                               |
 * | SO20260904 | C1001    | paid      | 45.50   | not shipped yet                            |
 * | SO20260905 | C1001    | cancelled | 199.00  | —                                          |
 * | SO20260906 | C1002    | shipped   | 256.00  | YTO Express, in transit                    |
 * | SO20260907 | C1002    | delivered | 79.00   | ZTO Express; RF2026090002 79.00 processing |
 * | SO20260908 | C1003    | paid      | 1299.00 | not shipped yet                            |
 *
 * @example
 * shopSeed.orders.filter((order) => order.customer_id === 'C1001').map((order) => order.order_id);
 */
export const shopSeed = {
  customers: [
    {
      customer_id: 'C1001',
      name: 'Alice Chen',
      phone: '+86 138 0013 1001',
      email: 'alice.chen@example.com',
      address: 'Room 1203, 88 Century Avenue, Pudong, Shanghai 200120',
    },
    {
      customer_id: 'C1002',
      name: 'Bob Li',
      phone: '+86 139 0013 1002',
      email: 'bob.li@example.com',
      address: 'Unit 5, 16 Wangfujing Street, Dongcheng, Beijing 100006',
    },
    {
      customer_id: 'C1003',
      name: 'Chen Jing',
      phone: '+86 137 0013 1003',
      email: 'chen.jing@example.com',
      address: '3F, 200 Tianhe Road, Tianhe, Guangzhou 510620',
    },
  ],
  orders: [
    {
      order_id: 'SO20260901',
      customer_id: 'C1001',
      status: 'shipped',
      total_cents: 12_900,
      placed_at: '2026-09-01T02:15:00Z',
    },
    {
      order_id: 'SO20260902',
      customer_id: 'C1001',
      status: 'delivered',
      total_cents: 35_800,
      placed_at: '2026-08-25T06:40:00Z',
    },
    {
      order_id: 'SO20260903',
      customer_id: 'C1001',
      status: 'pending',
      total_cents: 8_990,
      placed_at: '2026-09-03T11:05:00Z',
    },
    {
      order_id: 'SO20260904',
      customer_id: 'C1001',
      status: 'paid',
      total_cents: 4_550,
      placed_at: '2026-09-03T12:30:00Z',
    },
    {
      order_id: 'SO20260905',
      customer_id: 'C1001',
      status: 'cancelled',
      total_cents: 19_900,
      placed_at: '2026-08-30T09:00:00Z',
    },
    {
      order_id: 'SO20260906',
      customer_id: 'C1002',
      status: 'shipped',
      total_cents: 25_600,
      placed_at: '2026-09-01T08:20:00Z',
    },
    {
      order_id: 'SO20260907',
      customer_id: 'C1002',
      status: 'delivered',
      total_cents: 7_900,
      placed_at: '2026-08-27T03:10:00Z',
    },
    {
      order_id: 'SO20260908',
      customer_id: 'C1003',
      status: 'paid',
      total_cents: 129_900,
      placed_at: '2026-09-02T14:45:00Z',
    },
  ],
  orderItems: [
    {
      order_id: 'SO20260901',
      line: 1,
      sku: 'SKU-MOUSE-01',
      title: 'Wireless mouse',
      quantity: 1,
      unit_price_cents: 12_900,
    },
    { order_id: 'SO20260902', line: 1, sku: 'SKU-MUG-02', title: 'Ceramic mug', quantity: 2, unit_price_cents: 7_900 },
    {
      order_id: 'SO20260902',
      line: 2,
      sku: 'SKU-TEAPOT-01',
      title: 'Glass teapot',
      quantity: 1,
      unit_price_cents: 20_000,
    },
    {
      order_id: 'SO20260903',
      line: 1,
      sku: 'SKU-CABLE-03',
      title: 'USB-C cable, 2 m',
      quantity: 1,
      unit_price_cents: 8_990,
    },
    { order_id: 'SO20260904', line: 1, sku: 'SKU-NOTE-05', title: 'A5 notebook', quantity: 1, unit_price_cents: 4_550 },
    { order_id: 'SO20260905', line: 1, sku: 'SKU-LAMP-01', title: 'Desk lamp', quantity: 1, unit_price_cents: 19_900 },
    {
      order_id: 'SO20260906',
      line: 1,
      sku: 'SKU-KETTLE-02',
      title: 'Electric kettle',
      quantity: 1,
      unit_price_cents: 25_600,
    },
    { order_id: 'SO20260907', line: 1, sku: 'SKU-MUG-02', title: 'Ceramic mug', quantity: 1, unit_price_cents: 7_900 },
    {
      order_id: 'SO20260908',
      line: 1,
      sku: 'SKU-CHAIR-01',
      title: 'Office chair',
      quantity: 1,
      unit_price_cents: 129_900,
    },
  ],
  shipments: [
    {
      order_id: 'SO20260901',
      carrier: 'SF Express',
      tracking_number: 'SF1402938475610',
      shipped_at: '2026-09-02T01:30:00Z',
      delivered_at: null,
    },
    {
      order_id: 'SO20260902',
      carrier: 'JD Logistics',
      tracking_number: 'JDV000123456789',
      shipped_at: '2026-08-26T00:50:00Z',
      delivered_at: '2026-08-28T05:12:00Z',
    },
    {
      order_id: 'SO20260906',
      carrier: 'YTO Express',
      tracking_number: 'YT7712345678901',
      shipped_at: '2026-09-02T07:00:00Z',
      delivered_at: null,
    },
    {
      order_id: 'SO20260907',
      carrier: 'ZTO Express',
      tracking_number: '75312345678901',
      shipped_at: '2026-08-27T10:00:00Z',
      delivered_at: '2026-08-29T03:40:00Z',
    },
  ],
  shipmentEvents: [
    {
      order_id: 'SO20260901',
      sequence: 1,
      at: '2026-09-02T01:30:00Z',
      location: 'Shenzhen',
      description: 'Picked up by the courier',
    },
    {
      order_id: 'SO20260901',
      sequence: 2,
      at: '2026-09-02T09:10:00Z',
      location: 'Shenzhen hub',
      description: 'Departed the sorting centre',
    },
    {
      order_id: 'SO20260901',
      sequence: 3,
      at: '2026-09-03T04:25:00Z',
      location: 'Shanghai hub',
      description: 'Arrived at the destination city',
    },
    {
      order_id: 'SO20260902',
      sequence: 1,
      at: '2026-08-26T00:50:00Z',
      location: 'Beijing',
      description: 'Picked up by the courier',
    },
    {
      order_id: 'SO20260902',
      sequence: 2,
      at: '2026-08-27T15:30:00Z',
      location: 'Shanghai hub',
      description: 'Arrived at the destination city',
    },
    {
      order_id: 'SO20260902',
      sequence: 3,
      at: '2026-08-28T05:12:00Z',
      location: 'Shanghai Pudong',
      description: 'Delivered, signed for by the customer',
    },
    {
      order_id: 'SO20260906',
      sequence: 1,
      at: '2026-09-02T07:00:00Z',
      location: 'Hangzhou',
      description: 'Picked up by the courier',
    },
    {
      order_id: 'SO20260907',
      sequence: 1,
      at: '2026-08-27T10:00:00Z',
      location: 'Guangzhou',
      description: 'Picked up by the courier',
    },
    {
      order_id: 'SO20260907',
      sequence: 2,
      at: '2026-08-29T03:40:00Z',
      location: 'Beijing Dongcheng',
      description: 'Delivered to the parcel locker',
    },
  ],
  refunds: [
    {
      refund_no: 'RF2026090001',
      order_id: 'SO20260902',
      amount_cents: 7_900,
      reason_category: 'damaged',
      reason: 'One mug arrived with a chipped rim.',
      status: 'completed',
      requested_at: '2026-08-29T02:00:00Z',
      completed_at: '2026-08-31T08:00:00Z',
    },
    {
      refund_no: 'RF2026090002',
      order_id: 'SO20260907',
      amount_cents: 7_900,
      reason_category: 'not_as_described',
      reason: 'The colour is different from the photo.',
      status: 'processing',
      requested_at: '2026-09-01T06:30:00Z',
      completed_at: null,
    },
  ],
} as const;
