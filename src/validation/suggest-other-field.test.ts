import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../core/json-schema.js';
import { compileToolValidator } from './compile-tool-validator.js';

/** query_refund's shape: an order number or a refund number, each with its own pattern, and free text beside them. */
const queryRefund: JsonSchema = {
  type: 'object',
  properties: {
    order_id: { type: 'string', pattern: '^SO\\d{8}$', examples: ['SO20260901'] },
    refund_no: { type: 'string', pattern: '^RF\\d{10}$', examples: ['RF2026090001'] },
    comment: { type: 'string', maxLength: 200 },
  },
  additionalProperties: false,
};

function messages(schema: JsonSchema, args: unknown, locale: 'en' | 'zh-CN' = 'en'): string[] {
  return compileToolValidator({ schema, toolName: 'query_refund', locale })(args).map((issue) => issue.message);
}

describe('a refused value that another argument would take', () => {
  it('names the other argument when the value is valid there, in English and in Chinese', () => {
    expect(messages(queryRefund, { order_id: 'RF2026090001' })).toEqual([
      '`order_id`: expected a string matching ^SO\\d{8}$. Valid example: "SO20260901". You sent the string "RF2026090001", which is valid for `refund_no`: did you mean to send it as `refund_no`?',
    ]);
    expect(messages(queryRefund, { refund_no: 'SO20260901' }, 'zh-CN')).toEqual([
      '`refund_no`：需要匹配 ^RF\\d{10}$ 的字符串。合法示例："RF2026090001"。你传的是字符串 "SO20260901"，它符合 `order_id` 的要求：是不是应该作为 `order_id` 传？',
    ]);
  });

  it('says only what was sent when no other argument takes the value', () => {
    expect(messages(queryRefund, { order_id: '12345' })).toEqual([
      '`order_id`: expected a string matching ^SO\\d{8}$. Valid example: "SO20260901". You sent the string "12345".',
    ]);
  });

  it('does not offer free text, which would take any string', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: { order_id: { type: 'string', pattern: '^SO\\d{8}$' }, note: { type: 'string' } },
    };
    expect(messages(schema, { order_id: 'leave it at the door' })[0]).toMatch(
      /You sent the string "leave it at the door"\.$/,
    );
  });

  it('does not offer an argument the call sent with another valid value', () => {
    expect(messages(queryRefund, { order_id: 'RF2026090001', refund_no: 'RF2026090002' })[0]).toMatch(
      /You sent the string "RF2026090001"\.$/,
    );
  });

  it('offers an argument the call sent with a refused value, or with this very value', () => {
    // Qwen2.5-Coder-0.5B's own first calls for "How far along is my refund RF2026090002?" and "… RF2026090001".
    expect(messages(queryRefund, { order_id: 'RF2026090002', refund_no: '100001' })).toEqual([
      '`order_id`: expected a string matching ^SO\\d{8}$. Valid example: "SO20260901". You sent the string "RF2026090002", which is valid for `refund_no`: did you mean to send it as `refund_no`?',
      '`refund_no`: expected a string matching ^RF\\d{10}$. Valid example: "RF2026090001". You sent the string "100001".',
    ]);
    expect(messages(queryRefund, { order_id: 'RF2026090001', refund_no: 'RF2026090001' })[0]).toMatch(
      /"RF2026090001", which is valid for `refund_no`: did you mean to send it as `refund_no`\?$/,
    );
  });

  it('names none when two other arguments would both take the value', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: {
        order_id: { type: 'string', pattern: '^SO\\d{8}$' },
        refund_no: { type: 'string', pattern: '^RF\\d{10}$' },
        return_no: { type: 'string', pattern: '^R[FT]\\d{10}$' },
      },
    };
    expect(messages(schema, { order_id: 'RF2026090001' })[0]).toMatch(/You sent the string "RF2026090001"\.$/);
  });

  it('follows a $ref to the other argument’s pattern, and works for numbers and enums too', () => {
    const schema: JsonSchema = {
      type: 'object',
      $defs: { refundNo: { type: 'string', pattern: '^RF\\d{10}$' } },
      properties: {
        order_id: { type: 'string', pattern: '^SO\\d{8}$' },
        refund_no: { $ref: '#/$defs/refundNo' },
        status: { enum: ['open', 'closed'] },
        priority: { type: 'integer', enum: [1, 2, 3] },
        amount_cents: { type: 'string', format: 'uuid' },
      },
    };
    expect(messages(schema, { order_id: 'RF2026090001' })[0]).toMatch(/did you mean to send it as `refund_no`\?$/);
    expect(messages(schema, { order_id: 'closed' })[0]).toMatch(/did you mean to send it as `status`\?$/);
    expect(messages(schema, { order_id: 2 })[0]).toMatch(
      /You sent the number 2, which is valid for `priority`: did you mean to send it as `priority`\?$/,
    );
  });

  it('looks only at top-level arguments', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: {
        refund: {
          type: 'object',
          properties: {
            order_id: { type: 'string', pattern: '^SO\\d{8}$' },
            refund_no: { type: 'string', pattern: '^RF\\d{10}$' },
          },
        },
      },
    };
    expect(messages(schema, { refund: { order_id: 'RF2026090001' } })[0]).toMatch(
      /You sent the string "RF2026090001"\.$/,
    );
  });

  it('copes with hostile names: `__proto__`, `/` and `~` in a name, and many arguments', () => {
    const slashy: JsonSchema = {
      type: 'object',
      properties: {
        'order/id': { type: 'string', pattern: '^SO\\d{8}$' },
        'refund~no': { type: 'string', pattern: '^RF\\d{10}$' },
      },
    };
    expect(messages(slashy, { 'order/id': 'RF2026090001' })[0]).toMatch(/did you mean to send it as `refund~no`\?$/);
    // The model's own `__proto__` key (JSON.parse makes it an own key) is moved as a key, never as a prototype.
    const args = JSON.parse('{"order_id": "RF2026090001", "__proto__": {"refund_no": "RF2026090001"}}') as unknown;
    expect(messages(queryRefund, args)).toHaveLength(2);
    expect(messages(queryRefund, args)[0]).toMatch(/did you mean to send it as `refund_no`\?$/);
    expect(({} as Record<string, unknown>)['refund_no']).toBeUndefined();
    const many: Record<string, unknown> = { order_id: { type: 'string', pattern: '^SO\\d{8}$' } };
    for (let index = 0; index < 40; index += 1) many[`ref_${index}`] = { type: 'string', pattern: `^RF${index}$` };
    expect(messages({ type: 'object', properties: many }, { order_id: 'RF3' })[0]).toMatch(
      /You sent the string "RF3"\.$/,
    );
  });
});
