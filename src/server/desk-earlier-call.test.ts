import { describe, expect, it } from 'vitest';
import { toolFieldPolicy } from '../events/sensitive-fields.js';
import { shownAnswer } from './desk-earlier-call.js';

describe('shownAnswer', () => {
  it('redacts what the tool marks sensitive and what reads like personal data, at any depth', () => {
    const policy = toolFieldPolicy({ sensitive: ['note'] });
    const content = JSON.stringify({
      order_id: 'SO20260901',
      recipient_phone: '+86 138 0013 8000',
      note: 'leave it with the neighbour',
      delivery: { shipping_address: '88 Jianguo Road', status: 'delivered' },
    });
    expect(JSON.parse(shownAnswer({ content, policy }))).toEqual({
      order_id: 'SO20260901',
      recipient_phone: '[redacted]',
      note: '[redacted]',
      delivery: { shipping_address: '[redacted]', status: 'delivered' },
    });
  });

  it('redacts a list of records as it does one', () => {
    const content = JSON.stringify([{ order_id: 'SO1', contact_email: 'a@example.com' }]);
    expect(JSON.parse(shownAnswer({ content, policy: toolFieldPolicy({}) }))).toEqual([
      { order_id: 'SO1', contact_email: '[redacted]' },
    ]);
  });

  it('leaves an answer that is not JSON, or holds no field, as it is', () => {
    const policy = toolFieldPolicy({});
    expect(shownAnswer({ content: 'Refund RF1 submitted.', policy })).toBe('Refund RF1 submitted.');
    expect(shownAnswer({ content: '[1,2]', policy })).toBe('[1,2]');
    expect(shownAnswer({ content: '"done"', policy })).toBe('"done"');
  });
});
