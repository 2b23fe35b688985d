import { describe, expect, it } from 'vitest';
import { displayArguments, looksSensitive, schemaSensitiveNames, toolFieldPolicy } from './sensitive-fields.js';

describe('looksSensitive', () => {
  it('flags names whose word parts read like personal data', () => {
    const names = [
      'phone',
      'recipient_phone',
      'shippingAddress',
      'contact-email',
      'e_mail',
      'id_card',
      'mobile',
      'IBAN',
    ];
    expect(names.filter(looksSensitive)).toEqual(names);
  });

  it('leaves names alone that only contain such letters', () => {
    const names = ['order_id', 'hotel', 'mailbox_count', 'telemetry', 'addressee_count_total', 'amount_cents'];
    expect(names.filter(looksSensitive)).toEqual([]);
  });
});

describe('schemaSensitiveNames', () => {
  it('finds x-sensitive properties at any depth', () => {
    const schema = {
      type: 'object',
      properties: {
        note: { type: 'string', 'x-sensitive': true },
        items: { type: 'array', items: { type: 'object', properties: { serial: { 'x-sensitive': true } } } },
        plain: { type: 'string', 'x-sensitive': false },
      },
    };
    expect([...schemaSensitiveNames(schema)].sort()).toEqual(['note', 'serial']);
  });
});

describe('displayArguments', () => {
  it('removes bound parameters and redacts sensitive values without touching the prototype', () => {
    const policy = toolFieldPolicy({ sensitive: ['contact'], boundParameters: ['user_id'] });
    const args = JSON.parse('{"order_id":"SO1","user_id":"C1","contact":"x","__proto__":{"phone":"138"}}');
    const shown = displayArguments(args, policy);
    expect(JSON.stringify(shown)).toBe('{"order_id":"SO1","contact":"[redacted]","__proto__":{"phone":"[redacted]"}}');
    expect(Object.getPrototypeOf(shown)).toBe(Object.prototype);
  });
});
