import { ToolRegistry } from '../../tools/tool-registry.js';
import type { SideEffect, ToolDefinition } from '../../tools/tool-types.js';

/** [name, description, parameters (name → description), side effect] of the desk's tools. */
const table: readonly [string, string, Readonly<Record<string, string>>, SideEffect][] = [
  [
    'query_order',
    'Look up an order: status, items, totals. 查询订单状态。 Not for parcels: use track_shipment.',
    { order_id: 'Order number, e.g. SO20260901' },
    'read',
  ],
  [
    'track_shipment',
    'Where a parcel is now, with the carrier. 查询物流、快递到哪了。',
    { order_id: 'Order number of the parcel' },
    'read',
  ],
  [
    'cancel_order',
    'Cancel an order that has not shipped yet. 取消订单。',
    { order_id: 'Order number', reason: 'Why the customer cancels' },
    'irreversible',
  ],
  [
    'apply_refund',
    'Refund money for an order. 退款。 Not for cancelling: use cancel_order.',
    { order_id: 'Order number', amount_cents: 'Refund amount in cents' },
    'irreversible',
  ],
  [
    'change_address',
    'Change the delivery address of an order. 修改收货地址。',
    { order_id: 'Order number', address: 'The new delivery address' },
    'reversible',
  ],
  [
    'open_ticket',
    'Open a support ticket for a problem. 创建工单。',
    { subject: 'Short title', body: 'What happened' },
    'reversible',
  ],
  ['close_ticket', 'Close a support ticket. 关闭工单。', { ticket_id: 'Ticket number' }, 'reversible'],
  [
    'book_meeting',
    'Book a meeting in the calendar. 预约会议。',
    { title: 'Meeting title', starts_at: 'Start time' },
    'reversible',
  ],
  ['list_invoices', 'List the invoices of the account. 查看发票。', { year: 'Year of the invoices' }, 'read'],
  [
    'update_payment_method',
    'Change the card used for payments. 更换支付方式、银行卡。',
    { card_token: 'Token of the new card' },
    'reversible',
  ],
  ['search_files', 'Find files by name or content. 搜索文件。', { text: 'Words to look for' }, 'read'],
  [
    'handoff_to_human',
    'Pass the conversation to a person. 转人工。',
    { summary: 'What the person needs to know' },
    'reversible',
  ],
];

/**
 * Twelve tools of a support desk (orders, tickets, calendar, billing,
 * files), each description with a Chinese phrase, and the calls executed.
 * Read tools are in group `lookup`, the others in `act`, the hand-off in both.
 *
 * @example
 * const { registry, executed } = deskTools();
 */
export function deskTools(): { registry: ToolRegistry; executed: { tool: string; args: unknown }[] } {
  const executed: { tool: string; args: unknown }[] = [];
  const registry = new ToolRegistry();
  for (const [name, description, parameters, sideEffect] of table) {
    const definition: ToolDefinition = {
      name,
      description,
      parameters: {
        type: 'object',
        properties: Object.fromEntries(
          Object.entries(parameters).map(([field, text]) => [field, { type: 'string', description: text }]),
        ),
        required: Object.keys(parameters),
        additionalProperties: false,
      },
      sideEffect,
      groups: name === 'handoff_to_human' ? ['lookup', 'act'] : sideEffect === 'read' ? ['lookup'] : ['act'],
      execute: (args) => {
        executed.push({ tool: name, args });
        return { ok: true, tool: name };
      },
    };
    registry.register(definition);
  }
  return { registry, executed };
}
