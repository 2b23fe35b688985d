import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../core/json-schema.js';
import { compileToolValidator, createAjv } from './compile-tool-validator.js';
import { createIssueBuilder } from './create-issue-builder.js';
import { schemaGuide } from './schema-guide.js';

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
    expect(messages(queryRefund, { order_id: 'RF2026090001', refund_no: 'RF2026090001' })).toEqual([
      '`order_id`: expected a string matching ^SO\\d{8}$. Valid example: "SO20260901". You sent the string "RF2026090001", which is valid for `refund_no`, and you sent it as `refund_no` too: leave `order_id` out.',
    ]);
    expect(messages(queryRefund, { order_id: 'RF2026090001', refund_no: 'RF2026090001' }, 'zh-CN')[0]).toMatch(
      /它符合 `refund_no` 的要求，而且你已经作为 `refund_no` 传过：请去掉 `order_id`。$/,
    );
    // A required argument cannot be left out: no advice then.
    const required: JsonSchema = { ...queryRefund, required: ['order_id'] };
    expect(messages(required, { order_id: 'RF2026090001', refund_no: 'RF2026090001' })[0]).toMatch(
      /You sent the string "RF2026090001"\.$/,
    );
  });

  it('offers a pattern or a format only to a string, and never to null', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: {
        order_id: { type: 'string', pattern: '^SO\\d{8}$' },
        refund_no: { pattern: '^RF\\d{10}$' },
        ref: { format: 'uuid' },
      },
    };
    expect(messages(schema, { order_id: 12345 })[0]).toMatch(/You sent the number 12345\.$/);
    expect(messages(schema, { order_id: null })[0]).toMatch(/You sent null\.$/);
    expect(messages(schema, { order_id: -5 })[0]).toMatch(/You sent the number -5\.$/);
  });

  it('gives no hint under a caller’s ajv that stops at the first error', () => {
    const validate = compileToolValidator({
      schema: queryRefund,
      toolName: 'query_refund',
      ajv: new Ajv2020({ strict: false }),
    });
    expect(validate({ order_id: '12345', comment: 'x'.repeat(201) })[0]?.message).toMatch(
      /You sent the string "12345"\.$/,
    );
  });

  it('checks the call at most 32 times for one refusal, and never for a value longer than an identifier', () => {
    const properties: Record<string, unknown> = {};
    const long: Record<string, unknown> = {};
    const short: Record<string, unknown> = {};
    for (let index = 0; index < 32; index += 1) {
      properties[`f${index}`] = { type: 'string', pattern: `^f${index}-[a-z]{3}$`, maxLength: 9 };
      long[`f${index}`] = 'X'.repeat(10_000);
      short[`f${index}`] = `f${(index + 1) % 32}-abc`;
    }
    const schema: JsonSchema = { type: 'object', properties };
    const validate = createAjv().compile(schema);
    let checks = 0;
    const toIssues = createIssueBuilder({
      guide: schemaGuide(schema),
      toolName: 'wide',
      locale: 'en',
      check: (args) => {
        checks += 1;
        return validate(args) ? [] : (validate.errors ?? []);
      },
    });
    const refuse = (args: Record<string, unknown>) => {
      checks = 0;
      expect(validate(args)).toBe(false);
      return toIssues(validate.errors ?? [], args);
    };
    expect(refuse(long)).toHaveLength(32);
    expect(checks).toBe(0);
    // Every value fits its neighbour, which holds a refused value too: without the budget 32 × 31 checks.
    const issues = refuse(short);
    expect(issues).toHaveLength(32);
    expect(checks).toBe(32);
    expect(issues[0]?.message).toMatch(/which is valid for `f1`: did you mean to send it as `f1`\?$/);
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
