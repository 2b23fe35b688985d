import { defineTool } from '../../tools/define-tool.js';
import type { ApprovalVerdict, SideEffect, ToolDefinition } from '../../tools/tool-types.js';

/** What the egress tests' mail tool was asked to send. */
export interface Mail {
  readonly to: string;
  readonly body: string;
}

/**
 * The mail tool the egress tests leak through: `send_email`, an egress tool
 * of the given tier and optional own rule (e.g. one that lets mail go with
 * nobody asked), recording each mail it sends in `sent`.
 *
 * @example
 * const sent: Mail[] = [];
 * tools.register(sendEmailTool({ sent, sideEffect: 'reversible', approval: () => ({ verdict: 'allow', rule: 'mail_allowed' }) }));
 */
export function sendEmailTool({
  sent,
  sideEffect,
  approval,
}: {
  sent: Mail[];
  sideEffect: SideEffect;
  approval?: () => ApprovalVerdict;
}): ToolDefinition<Mail> {
  return defineTool<Mail>({
    name: 'send_email',
    description: 'Send an e-mail. Not for notes on an order: use add_order_note.',
    parameters: {
      type: 'object',
      properties: { to: { type: 'string' }, body: { type: 'string' } },
      required: ['to', 'body'],
    },
    sideEffect,
    egress: true,
    ...(approval === undefined ? {} : { approval }),
    execute: (mail) => {
      sent.push(mail);
      return { sent: true };
    },
  });
}
