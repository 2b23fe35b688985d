import {
  defineTool,
  FatalToolError,
  type GateRule,
  type Locale,
  RetryableToolError,
  type ToolContext,
  type ToolDefinition,
} from '@arbiter-runtime/core';
import { z } from 'zod';
import type { OrderRow, RefundRow, ShopDatabase } from './shop-database.js';
import { type ShopToolTexts, shopToolTexts } from './shop-tool-texts.js';

/**
 * Refund reasons the shop's after-sales team sorts by; the `reason_category` enum of `apply_refund`.
 *
 * @example
 * refundReasonCategories.includes('damaged'); // true
 */
export const refundReasonCategories = [
  'damaged',
  'wrong_item',
  'missing_item',
  'not_received',
  'not_as_described',
  'changed_mind',
  'other',
] as const;

export type RefundReasonCategory = (typeof refundReasonCategories)[number];

/**
 * Automatic refunds of one customer stay below this many cents (50.00 yuan)
 * a day in total: a refund runs without a person only while the customer's
 * automatic refunds of the day, this one included, stay under it. One refund
 * of 50.00 yuan or more always waits for staff, and so do the refunds that
 * would push the day's automatic total to 50.00 yuan, however they are split.
 */
export const refundAutoApproveBelowCents = 5_000;

/** The shop's calendar: "today" for the daily automatic refund limit is a day in China. */
export const shopTimeZone = 'Asia/Shanghai';

/** Refunds above this many cents (5000.00 yuan) are never made through the assistant. */
export const refundHardCapCents = 500_000;

/**
 * The shop's gate configuration (data, as it would sit in a config file):
 * a hard cap no tool rule and no approver can lift.
 *
 * @example
 * const gate = createTierGate({ rules: shopGateRules, tools: registry });
 */
export const shopGateRules: readonly GateRule[] = [
  {
    tool: 'apply_refund',
    when: { field: 'amount_cents', above: refundHardCapCents },
    effect: 'deny',
    rule: 'refund_hard_cap',
    code: 'refund_over_hard_cap',
    message: `Refunds above ${formatYuan(refundHardCapCents)} yuan cannot be made in this chat. Tell the customer a member of staff will contact them about it.`,
  },
];

/**
 * The caller, filled by the runtime from the principal; absent from the schema
 * the model sees. A customer id is unique only within its tenant, so every
 * lookup takes both.
 */
const boundParameters = { tenant_id: 'tenantId', user_id: 'userId' } as const;

/**
 * The parameters of the shop's tools in zod, described in the run's
 * language. Each is said in what JSON Schema can say (a pattern, bounds, an
 * enum, the examples a model copies), since `defineTool` converts each
 * schema once into the JSON Schema the model is sent and arbiter enforces.
 * Built once per language: zod schemas are immutable, and a schema already
 * converted is not converted again however many times the tools are made.
 */
function shopParameters(texts: ShopToolTexts) {
  const orderId = (description: string) =>
    z
      .string()
      .regex(/^SO\d{8}$/)
      .meta({ description, examples: ['SO20260901'] });
  const refundNo = (description: string) =>
    z
      .string()
      .regex(/^RF\d{10}$/)
      .meta({ description, examples: ['RF2026090001'] });
  /** A tool's parameters: the caller's (bound from the principal), then its own; no others accepted. */
  const ofCaller = <Shape extends z.ZodRawShape>(shape: Shape) =>
    z.strictObject({
      tenant_id: z.string().meta({ description: texts.tenantId }),
      user_id: z.string().meta({ description: texts.userId }),
      ...shape,
    });
  return {
    queryOrder: ofCaller({ order_id: orderId(texts.orderId) }),
    trackShipment: ofCaller({ order_id: orderId(texts.orderId) }),
    queryRefund: ofCaller({
      order_id: orderId(`${texts.orderId}${texts.orRefundNo}`).optional(),
      refund_no: refundNo(`${texts.refundNo}${texts.orOrderId}`).optional(),
    }),
    addOrderNote: ofCaller({
      order_id: orderId(texts.orderId),
      note: z
        .string()
        .min(1)
        .max(500)
        .meta({ description: texts.note, examples: ['Please leave the parcel at the building reception.'] }),
    }),
    applyRefund: ofCaller({
      order_id: orderId(texts.orderId),
      amount_cents: z
        .int()
        .min(1)
        .max(10_000_000)
        .meta({ description: texts.amountCents, examples: [4550] }),
      reason_category: z.enum(refundReasonCategories).meta({ description: texts.reasonCategory }),
      reason: z
        .string()
        .min(1)
        .max(500)
        .meta({ description: texts.reason, examples: ['The mug arrived with a chipped handle.'] }),
    }),
  };
}

const parametersByLocale = new Map<Locale, ReturnType<typeof shopParameters>>();

export interface ShopToolsOptions {
  readonly database: ShopDatabase;
  /** The language of the descriptions the model is sent (and validation messages quote). Default `en`. */
  readonly locale?: Locale;
  /** The clock for timestamps on notes and refunds; tests pass a fixed one. */
  readonly now?: () => Date;
}

/**
 * The demo shop's five tools: three lookups (`query_order`, `track_shipment`,
 * `query_refund`) and two actions (`add_order_note`, `apply_refund`). Each
 * description says when to use the tool and when to use a sibling instead.
 * Each binds `tenant_id` and `user_id` from the principal (data scope
 * `tenant_user`), so a customer only ever reaches the orders of the same id
 * in the same tenant. Every check that needs the database (the order exists
 * and is the caller's, its state allows the action, the amount fits) happens
 * inside `execute`.
 *
 * @example
 * const registry = new ToolRegistry();
 * for (const tool of createShopTools({ database: openShopDatabase({ path: ':memory:' }) })) registry.register(tool);
 */
export function createShopTools({
  database,
  locale = 'en',
  now = () => new Date(),
}: ShopToolsOptions): readonly ToolDefinition[] {
  const texts = shopToolTexts[locale];
  let parameters = parametersByLocale.get(locale);
  if (parameters === undefined) {
    parameters = shopParameters(texts);
    parametersByLocale.set(locale, parameters);
  }
  const ownedOrder = ({ tenantId, customerId }: Caller, orderId: string): OrderRow => {
    const order = database.findOrder({ tenantId, customerId, orderId });
    if (order === undefined) throw orderNotFound(orderId);
    return order;
  };
  const of = (order: OrderRow) => ({ tenantId: order.tenant_id, orderId: order.order_id });

  const queryOrder = defineTool({
    name: 'query_order',
    description: texts.queryOrder,
    parameters: parameters.queryOrder,
    sideEffect: 'read',
    groups: ['lookup'],
    boundParameters,
    dataScope: 'tenant_user',
    sensitive: ['recipient_phone', 'shipping_address'],
    progress: { en: 'Looking up your order…', 'zh-CN': '正在查询订单…' },
    execute: (args, context) => {
      const order = ownedOrder(callerOf(args, context), args.order_id);
      const refundedCents = database.refundedCents(of(order));
      return {
        order_id: order.order_id,
        status: order.status,
        placed_at: order.placed_at,
        items: database.listOrderItems(of(order)),
        currency: 'CNY',
        total_cents: order.total_cents,
        refunded_cents: refundedCents,
        refundable_cents: refundableCents(order, refundedCents),
        recipient_name: order.recipient_name,
        recipient_phone: order.recipient_phone,
        shipping_address: order.shipping_address,
      };
    },
  });

  const trackShipment = defineTool({
    name: 'track_shipment',
    description: texts.trackShipment,
    parameters: parameters.trackShipment,
    sideEffect: 'read',
    groups: ['lookup'],
    boundParameters,
    dataScope: 'tenant_user',
    progress: { en: 'Tracking your parcel…', 'zh-CN': '正在查询物流…' },
    execute: (args, context) => {
      const order = ownedOrder(callerOf(args, context), args.order_id);
      const shipment = database.findShipment(of(order));
      if (shipment === undefined) {
        return {
          order_id: order.order_id,
          order_status: order.status,
          shipped: false,
          summary:
            order.status === 'cancelled'
              ? 'The order was cancelled and will not ship.'
              : 'The order has not shipped yet, so there is no tracking information.',
        };
      }
      return {
        order_id: order.order_id,
        order_status: order.status,
        shipped: true,
        carrier: shipment.carrier,
        tracking_number: shipment.tracking_number,
        shipped_at: shipment.shipped_at,
        delivered_at: shipment.delivered_at,
        events: database.listShipmentEvents(of(order)),
      };
    },
  });

  const queryRefund = defineTool({
    name: 'query_refund',
    description: texts.queryRefund,
    parameters: parameters.queryRefund,
    sideEffect: 'read',
    groups: ['lookup'],
    boundParameters,
    dataScope: 'tenant_user',
    progress: { en: 'Checking your refund…', 'zh-CN': '正在查询退款进度…' },
    execute: (args, context) => {
      const caller = callerOf(args, context);
      if (args.refund_no !== undefined) {
        const refund = database.findRefund({ ...caller, refundNo: args.refund_no });
        if (refund === undefined || (args.order_id !== undefined && refund.order_id !== args.order_id)) {
          throw new RetryableToolError({
            code: 'refund_not_found',
            field: 'refund_no',
            message:
              `No refund ${args.refund_no} was found for this customer` +
              (args.order_id === undefined ? '' : ` on order ${args.order_id}`) +
              '. Check the refund number with the customer, or call query_refund with only the order_id.',
          });
        }
        return { refunds: [describeRefund(refund)] };
      }
      if (args.order_id === undefined) {
        throw new RetryableToolError({
          code: 'missing_field',
          field: 'order_id',
          message:
            'query_refund needs order_id (e.g. SO20260901) or refund_no (e.g. RF2026090001). ' +
            'Ask the customer for one of them and call again.',
        });
      }
      const order = ownedOrder(caller, args.order_id);
      const refunds = database.listRefunds(of(order));
      return {
        order_id: order.order_id,
        refunds: refunds.map(describeRefund),
        refundable_cents: refundableCents(order, database.refundedCents(of(order))),
      };
    },
  });

  const addOrderNote = defineTool({
    name: 'add_order_note',
    description: texts.addOrderNote,
    parameters: parameters.addOrderNote,
    sideEffect: 'reversible',
    groups: ['act'],
    boundParameters,
    dataScope: 'tenant_user',
    progress: { en: 'Adding a note to your order…', 'zh-CN': '正在为订单添加备注…' },
    execute: (args, context) => {
      const order = ownedOrder(callerOf(args, context), args.order_id);
      if (order.status === 'cancelled') {
        throw new FatalToolError({
          code: 'order_cancelled',
          message: `Order ${order.order_id} is cancelled, so notes can no longer be added to it.`,
        });
      }
      const createdAt = now().toISOString();
      const notesOnOrder = database.insertOrderNote({ ...of(order), note: args.note, createdAt });
      return { order_id: order.order_id, note: args.note, created_at: createdAt, notes_on_order: notesOnOrder };
    },
    // After execute: the result it receives is typed as what execute returns.
    undo: (args, result, context) => {
      const { tenantId } = callerOf(args, context);
      database.deleteOrderNote({ tenantId, orderId: args.order_id, note: result.note, createdAt: result.created_at });
    },
  });

  const applyRefund = defineTool({
    name: 'apply_refund',
    description: texts.applyRefund,
    parameters: parameters.applyRefund,
    sideEffect: 'irreversible',
    groups: ['act'],
    boundParameters,
    dataScope: 'tenant_user',
    progress: { en: 'Submitting your refund…', 'zh-CN': '正在提交退款申请…' },
    // The model sends fen; the approval card, the desk and the audit show "200.00 CNY" / "¥200.00".
    display: { amount_cents: { kind: 'money', currency: 'CNY' } },
    // Cumulative: a refund is automatic only while the customer's automatic refunds of the day (this one included)
    // stay under 50.00 yuan, so eight refunds of 49.9x yuan are one automatic refund and seven for staff.
    approval: async ({ order_id, amount_cents }, context) => {
      const chinese = context.locale === 'zh-CN';
      if (amount_cents >= refundAutoApproveBelowCents) {
        return {
          verdict: 'require_approval',
          rule: 'refund_50_yuan_or_more',
          reason: chinese
            ? `订单 ${order_id} 的退款 ${formatYuan(amount_cents)} 元不低于 50.00 元，需要工作人员审批。`
            : `A refund of ${formatYuan(amount_cents)} yuan on ${order_id} is 50.00 yuan or more, so a member of staff must approve it.`,
        };
      }
      const today = await context.history.calls({
        within: 'day',
        decisions: ['auto_approved'],
        timeZone: shopTimeZone,
      });
      // A call with an earlier refund's order and amount replays that refund (see idempotencyKey): it moves no
      // money, so that refund is not counted twice.
      const total = today
        .filter((call) => call.arguments['order_id'] !== order_id || call.arguments['amount_cents'] !== amount_cents)
        .reduce((sum, call) => sum + centsOf(call.arguments['amount_cents']), amount_cents);
      if (total < refundAutoApproveBelowCents) return { verdict: 'allow', rule: 'refund_under_50_yuan' };
      return {
        verdict: 'require_approval',
        rule: 'refund_daily_auto_limit',
        reason: chinese
          ? `订单 ${order_id} 的退款 ${formatYuan(amount_cents)} 元会使该顾客今天的自动退款累计达到 ${formatYuan(total)} 元（不低于 50.00 元），需要工作人员审批。`
          : `A refund of ${formatYuan(amount_cents)} yuan on ${order_id} would bring this customer's automatic refunds today to ${formatYuan(total)} yuan (50.00 yuan or more), so a member of staff must approve it.`,
      };
    },
    // The business identity of a refund is the order and the amount: a model's retry repeats them, while it may
    // reword the free-text reason (or pick another category), so neither is part of the key, and no
    // model-generated id ever is. A second refund of the very same amount on the same order replays the first.
    // The runtime scopes the key by the caller's tenant and user: another customer's identical call is another key.
    idempotencyKey: refundKey,
    // An interrupted refund is looked up by its key, which is recorded with the refund in the same transaction:
    // found, it happened (its result is rebuilt from the row); not found, the transaction never committed.
    reconcile: (args, key, context) => {
      const caller = callerOf(args, context);
      const refund = database.findRefundByKey({ tenantId: caller.tenantId, idempotencyKey: key });
      if (refund === undefined) return { status: 'not_happened' };
      const order = ownedOrder(caller, refund.order_id);
      return {
        status: 'happened',
        result: {
          ...describeRefund(refund),
          remaining_refundable_cents: refundableCents(order, database.refundedCents(of(order))),
          expected: 'Back on the original payment method within 1-3 business days.',
        },
      };
    },
    execute: (args, context) => {
      const caller = callerOf(args, context);
      return database.transaction(() => {
        const order = ownedOrder(caller, args.order_id);
        refuseUnrefundableState(order);
        const available = refundableCents(order, database.refundedCents(of(order)));
        if (available === 0) {
          throw new FatalToolError({
            code: 'order_fully_refunded',
            message: `Order ${order.order_id} has already been refunded in full; nothing is left to refund.`,
          });
        }
        if (args.amount_cents > available) {
          throw new RetryableToolError({
            code: 'amount_exceeds_refundable',
            field: 'amount_cents',
            message:
              `amount_cents ${args.amount_cents} is more than order ${order.order_id} can still refund: ` +
              `the maximum is ${available} (${formatYuan(available)} yuan). Use ${available} or less.`,
          });
        }
        const refund = database.insertRefund({
          ...of(order),
          amountCents: args.amount_cents,
          reasonCategory: args.reason_category,
          reason: args.reason,
          requestedAt: now().toISOString(),
          idempotencyKey: refundKey(args),
        });
        return {
          ...describeRefund(refund),
          remaining_refundable_cents: available - refund.amount_cents,
          expected: 'Back on the original payment method within 1-3 business days.',
        };
      });
    },
  });

  return [queryOrder, trackShipment, queryRefund, addOrderNote, applyRefund];
}

/** The business identity of a refund: its order and amount (see `apply_refund`'s `idempotencyKey`). */
function refundKey({ order_id, amount_cents }: { order_id: string; amount_cents: number }): string {
  return `refund:${order_id}:${amount_cents}`;
}

/** Who is asking: the tenant and the customer id within it. */
interface Caller {
  readonly tenantId: string;
  readonly customerId: string;
}

function callerOf(args: { tenant_id?: unknown; user_id?: unknown }, context: ToolContext): Caller {
  if (
    context.principal === undefined ||
    typeof args.tenant_id !== 'string' ||
    args.tenant_id === '' ||
    typeof args.user_id !== 'string' ||
    args.user_id === ''
  ) {
    throw new FatalToolError({
      code: 'unauthenticated',
      message:
        'No signed-in customer is attached to this conversation, so no account data can be used. Ask the customer to sign in.',
    });
  }
  return { tenantId: args.tenant_id, customerId: args.user_id };
}

/** The cents of an audited `amount_cents`; anything else counts in full against the limit. */
function centsOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : refundAutoApproveBelowCents;
}

/** The same answer for "does not exist" and "belongs to someone else": existence does not leak. */
function orderNotFound(orderId: string): RetryableToolError {
  return new RetryableToolError({
    code: 'order_not_found',
    field: 'order_id',
    message:
      `No order ${orderId} was found for this customer. Check the order number with the customer ` +
      '("SO" followed by 8 digits, e.g. SO20260901).',
  });
}

function refuseUnrefundableState(order: OrderRow): void {
  if (order.status === 'pending') {
    throw new FatalToolError({
      code: 'order_not_paid',
      message: `Order ${order.order_id} has not been paid yet, so there is nothing to refund.`,
    });
  }
  if (order.status === 'cancelled') {
    throw new FatalToolError({
      code: 'order_cancelled',
      message: `Order ${order.order_id} is cancelled; its payment was already returned when it was cancelled.`,
    });
  }
}

function refundableCents(order: OrderRow, refundedCents: number): number {
  if (order.status === 'pending' || order.status === 'cancelled') return 0;
  return Math.max(0, order.total_cents - refundedCents);
}

function describeRefund(refund: RefundRow) {
  return {
    refund_no: refund.refund_no,
    order_id: refund.order_id,
    amount_cents: refund.amount_cents,
    reason_category: refund.reason_category,
    status: refund.status,
    requested_at: refund.requested_at,
    completed_at: refund.completed_at,
  };
}

function formatYuan(cents: number): string {
  return (cents / 100).toFixed(2);
}
