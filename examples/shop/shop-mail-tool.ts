import {
  defineTool,
  FatalToolError,
  type Locale,
  RetryableToolError,
  type ToolDefinition,
} from '@arbiter-runtime/core';
import type { ShopDatabase } from './shop-database.js';

const texts: Readonly<
  Record<
    Locale,
    {
      readonly tool: string;
      readonly orderId: string;
      readonly to: string;
      readonly notOnFile: (to: string) => string;
    }
  >
> = {
  en: {
    tool:
      "E-mail a summary of one of the signed-in customer's orders (status, items, amounts) to an address the " +
      'customer gives. Sends data outside the shop. Not for notes to staff (use add_order_note).',
    orderId: 'Order number, "SO" + 8 digits, e.g. SO20260901',
    to: 'The address to send to, e.g. li.wei@example.com',
    notOnFile: (to) => `${to} is not the customer's address on file, so a member of staff must approve the mail.`,
  },
  'zh-CN': {
    tool: '把当前登录顾客某个订单的摘要（状态、商品、金额）发到顾客给出的邮箱。数据会发出店铺之外。不用于给工作人员留备注（用 add_order_note）。',
    orderId: '订单号，"SO" 加 8 位数字，例如 SO20260901',
    to: '收件邮箱，例如 li.wei@example.com',
    notOnFile: (to) => `${to} 不是顾客登记的邮箱，这封邮件需要工作人员审批。`,
  },
};

/**
 * The shop's one tool that sends data out: `email_order_summary` mails an
 * order's summary (the demo records it in `sent_mails`). It declares
 * `egress`, so once a conversation holds untrusted content (a tool result
 * declaring `untrustedOutput`, an untrusted MCP server's) every call waits
 * for a person, whatever its own rule says. Its own rule: mail to the
 * customer's address on file goes automatically; any other address waits
 * for staff. Not among the five demo tools; mount it beside them.
 *
 * @example
 * registry.register(createShopMailTool({ database }));
 */
export function createShopMailTool({
  database,
  locale = 'en',
  now = () => new Date(),
}: {
  database: ShopDatabase;
  locale?: Locale;
  now?: () => Date;
}): ToolDefinition {
  const words = texts[locale];
  const tool = defineTool<{ tenant_id: string; user_id: string; order_id: string; to: string }>({
    name: 'email_order_summary',
    description: words.tool,
    parameters: {
      type: 'object',
      properties: {
        tenant_id: { type: 'string' },
        user_id: { type: 'string' },
        order_id: { type: 'string', description: words.orderId, pattern: '^SO\\d{8}$', examples: ['SO20260901'] },
        to: {
          type: 'string',
          description: words.to,
          pattern: '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$',
          examples: ['li.wei@example.com'],
        },
      },
      required: ['tenant_id', 'user_id', 'order_id', 'to'],
      additionalProperties: false,
    },
    sideEffect: 'irreversible',
    egress: true,
    groups: ['mail'],
    boundParameters: { tenant_id: 'tenantId', user_id: 'userId' },
    dataScope: 'tenant_user',
    sensitive: ['to'],
    approval: ({ tenant_id, user_id, to }) =>
      database.customerEmail({ tenantId: tenant_id, customerId: user_id }) === to
        ? { verdict: 'allow', rule: 'mail_to_address_on_file' }
        : { verdict: 'require_approval', rule: 'mail_to_other_address', reason: words.notOnFile(to) },
    execute: ({ tenant_id, user_id, order_id, to }) => {
      if (tenant_id === '' || user_id === '') {
        throw new FatalToolError({ code: 'not_signed_in', message: 'Mail needs a signed-in customer.' });
      }
      const order = database.findOrder({ tenantId: tenant_id, customerId: user_id, orderId: order_id });
      if (order === undefined) {
        throw new RetryableToolError({
          code: 'order_not_found',
          field: 'order_id',
          message: `No order ${order_id} for this customer. Check the number (SO + 8 digits) with the customer.`,
        });
      }
      const body = `Order ${order.order_id}: ${order.status}, ${(order.total_cents / 100).toFixed(2)} yuan.`;
      const sentAt = now().toISOString();
      database.recordMail({ tenantId: tenant_id, customerId: user_id, orderId: order_id, recipient: to, body, sentAt });
      return { order_id, to, status: 'sent', sent_at: sentAt };
    },
  });
  return tool as unknown as ToolDefinition;
}
