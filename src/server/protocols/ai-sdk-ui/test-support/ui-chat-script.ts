import type { Script } from '../../../../models/script.js';

/**
 * The scripted shop chat the `useChat` tests talk to (the browser test hands
 * it to `arbiter serve --script` as JSON; the answer to a question is long
 * enough to reload the page in the middle of it at the default pace): a question about an
 * order, an order number given in the wrong shape (the model corrects the
 * call after arbiter's validation message), and a refund above the cap that
 * waits for an approver.
 */
export const uiChatScript: Script = {
  name: 'ui-chat',
  onUnclearError: 'repeat',
  maxRepeats: 1,
  giveUp: "I'm sorry, I couldn't complete that.",
  askUser: 'Could you give me the {field}? It looks like {example}.',
  onRefusal: "I'm sorry, I can't do that: {reason}",
  turns: [
    {
      when: 'refund|cracked',
      steps: [
        { call: { name: 'query_order', arguments: { order_id: 'SO20260902' } } },
        {
          call: {
            name: 'apply_refund',
            arguments: {
              order_id: '{{query_order.order_id}}',
              amount_cents: 20000,
              reason_category: 'damaged',
              reason: 'The glass teapot arrived cracked.',
            },
          },
        },
        {
          say: 'Done: your refund {{apply_refund.refund_no}} of 200.00 yuan for order {{apply_refund.order_id}} is {{apply_refund.status}}.',
        },
      ],
    },
    {
      when: '12345',
      steps: [
        { call: { name: 'query_order', arguments: { order_id: 12345 } } },
        { say: 'Found it: order {{query_order.order_id}} is {{query_order.status}}.' },
      ],
    },
    {
      steps: [
        { call: { name: 'query_order', arguments: { order_id: 'SO20260901' } } },
        {
          say:
            'Your order {{query_order.order_id}} is {{query_order.status}}. It is on its way to you, and you can follow ' +
            'the parcel on the carrier site with the tracking number from your confirmation email. Parcels like this ' +
            'one usually arrive within two to four business days after they leave our warehouse; the carrier tries ' +
            'twice, and after a second missed delivery it keeps the parcel at the nearest pick-up point for a week. ' +
            'If you would rather have it left at your building reception, tell me and I will add a note for the ' +
            'courier. Is there anything else I can help you with today?',
        },
      ],
    },
  ],
};
