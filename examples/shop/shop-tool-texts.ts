import type { Locale } from '@arbiter-runtime/core';

/** The words of the shop's tools that the model and a person read: descriptions of tools and parameters. */
export interface ShopToolTexts {
  readonly queryOrder: string;
  readonly trackShipment: string;
  readonly queryRefund: string;
  readonly addOrderNote: string;
  readonly applyRefund: string;
  readonly tenantId: string;
  readonly userId: string;
  readonly orderId: string;
  readonly refundNo: string;
  /** Added to `orderId` / `refundNo` where either of the two is enough. */
  readonly orRefundNo: string;
  readonly orOrderId: string;
  readonly note: string;
  readonly amountCents: string;
  readonly reasonCategory: string;
  readonly reason: string;
}

/**
 * The shop's tool texts per language: a zh-CN run sends the model Chinese
 * descriptions, and the validation messages quoting them read Chinese too.
 * Tool and parameter names, patterns and enum values stay as they are.
 *
 * @example
 * shopToolTexts['zh-CN'].orderId; // '订单号，"SO" 加 8 位数字，例如 SO20260901'
 */
export const shopToolTexts: Readonly<Record<Locale, ShopToolTexts>> = {
  en: {
    queryOrder:
      "Look up one of the signed-in customer's orders: status, items, amounts in cents (incl. refundable_cents), " +
      'delivery address. Not for delivery progress (use track_shipment) or refunds (use query_refund).',
    trackShipment:
      "Delivery progress of one of the signed-in customer's orders: carrier, tracking number, courier events. " +
      'Not for order details (use query_order) or refunds (use query_refund).',
    queryRefund:
      "Status of the signed-in customer's refunds, by order_id (all refunds of the order) or refund_no (one " +
      'refund). Read-only: not for starting a refund (use apply_refund).',
    addOrderNote:
      "Attach a note for staff to one of the signed-in customer's orders, e.g. delivery instructions. Changes " +
      'nothing else: not for refunds (use apply_refund).',
    applyRefund:
      'Refund part or all of a paid, shipped or delivered order of the signed-in customer. Irreversible; larger ' +
      'amounts wait for staff approval. Get refundable_cents from query_order first. Not for refund status (use ' +
      'query_refund).',
    tenantId:
      "The signed-in customer's shop (tenant), filled by the server from the session; never chosen by the model",
    userId: "The signed-in customer's id, filled by the server from the session; never chosen by the model",
    orderId: 'Order number, "SO" + 8 digits, e.g. SO20260901',
    refundNo: 'Refund number, "RF" + 10 digits, e.g. RF2026090001',
    orRefundNo: '; give this or refund_no',
    orOrderId: '; give this or order_id',
    note: 'The note, one or two sentences',
    amountCents: "Integer cents (fen): 45.50 yuan is 4550. At most the order's refundable_cents",
    reasonCategory: 'Kind of problem',
    reason: "The customer's reason, one sentence",
  },
  'zh-CN': {
    queryOrder:
      '查询当前登录顾客的一个订单：状态、商品、金额（单位为分，含 refundable_cents）、收货地址。' +
      '不用于查物流（用 track_shipment），也不用于查退款（用 query_refund）。',
    trackShipment:
      '查询当前登录顾客某个订单的物流进度：承运商、运单号、快递轨迹。不用于查订单详情（用 query_order），也不用于查退款（用 query_refund）。',
    queryRefund:
      '查询当前登录顾客的退款状态，按 order_id（该订单的全部退款）或 refund_no（一笔退款）查询。只读：不用于发起退款（用 apply_refund）。',
    addOrderNote:
      '给当前登录顾客的某个订单添加一条给工作人员看的备注，例如送货要求。不改动其他任何内容：不用于退款（用 apply_refund）。',
    applyRefund:
      '为当前登录顾客已付款、已发货或已签收的订单退还部分或全部金额。不可撤销；金额较大时需等待工作人员确认。' +
      '请先用 query_order 查到 refundable_cents。不用于查询退款状态（用 query_refund）。',
    tenantId: '当前登录顾客所属的店铺（租户），由服务器根据会话填写，模型不能选择',
    userId: '当前登录顾客的编号，由服务器根据会话填写，模型不能选择',
    orderId: '订单号，"SO" 加 8 位数字，例如 SO20260901',
    refundNo: '退款单号，"RF" 加 10 位数字，例如 RF2026090001',
    orRefundNo: '；与 refund_no 二选一',
    orOrderId: '；与 order_id 二选一',
    note: '备注内容，一两句话',
    amountCents: '整数，单位为分：45.50 元即 4550。不超过订单的 refundable_cents',
    reasonCategory: '问题类型',
    reason: '顾客给出的原因，一句话',
  },
};
