import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../core/json-schema.js';
import { ToolDefinitionError } from '../errors/tool-definition-error.js';
import { compileToolValidator, createAjv } from './compile-tool-validator.js';
import { formatValidationMessage } from './format-validation-message.js';
import { applyRefundSchema, createRefundSchema, validCreateRefund } from './test-support/index.js';

const refund = compileToolValidator({ schema: applyRefundSchema, toolName: 'apply_refund' });
const createRefund = compileToolValidator({ schema: createRefundSchema, toolName: 'create_refund' });

/** Validates `args` against a one-off tool schema and returns the issues. */
function check(schema: JsonSchema, args: unknown) {
  return compileToolValidator({ schema, toolName: 'some_tool' })(args);
}

/** The single issue for `args`, failing the test when there is not exactly one. */
function onlyIssue(schema: JsonSchema, args: unknown) {
  const issues = check(schema, args);
  expect(issues).toHaveLength(1);
  const [issue] = issues;
  if (issue === undefined) throw new Error('expected one issue');
  return issue;
}

const objectOf = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}): JsonSchema => ({
  type: 'object',
  properties,
  ...extra,
});

describe('compileToolValidator', () => {
  it('rejects the seed call with one message listing all three problems', () => {
    const issues = refund({ order_id: 12345, amount_cents: -100, reason: '' });
    expect(issues.map(({ path, code, layer }) => ({ path, code, layer }))).toEqual([
      { path: '$.order_id', code: 'wrong_type', layer: 'schema' },
      { path: '$.amount_cents', code: 'too_small', layer: 'semantic' },
      { path: '$.reason', code: 'too_short', layer: 'semantic' },
    ]);
    expect(formatValidationMessage({ toolName: 'apply_refund', issues })).toMatchInlineSnapshot(`
      "The call to apply_refund was not run: 3 problems with its arguments. Fix all of them and call apply_refund again.
      - \`order_id\`: expected a string matching ^SO\\d{8}$ (Order number: SO followed by 8 digits). Valid example: "SO20260901". You sent the number 12345.
      - \`amount_cents\`: expected an integer >= 1 (Refund amount in cents). Valid example: 1999. You sent the number -100.
      - \`reason\`: expected a non-empty string (Why the refund is made, in the customer's words). Valid example: "arrived damaged". You sent an empty string ""."
    `);
  });

  it('rejects the seed call in Chinese when the locale is zh-CN', () => {
    const validate = compileToolValidator({ schema: applyRefundSchema, toolName: 'apply_refund', locale: 'zh-CN' });
    const issues = validate({ order_id: 12345, amount_cents: -100, reason: '' });
    expect(formatValidationMessage({ toolName: 'apply_refund', issues, locale: 'zh-CN' })).toMatchInlineSnapshot(`
      "调用 apply_refund 未执行：参数有 3 处问题。请一次改正全部问题后重新调用 apply_refund。
      - \`order_id\`：需要匹配 ^SO\\d{8}$ 的字符串（Order number: SO followed by 8 digits）。合法示例："SO20260901"。你传的是数字 12345。
      - \`amount_cents\`：需要大于等于 1 的整数（Refund amount in cents）。合法示例：1999。你传的是数字 -100。
      - \`reason\`：需要非空字符串（Why the refund is made, in the customer's words）。合法示例："arrived damaged"。你传的是空字符串 ""。"
    `);
  });

  it('uses each issue line, without its dash, as the issue message', () => {
    const issues = refund({ order_id: 12345, amount_cents: -100, reason: '' });
    const lines = formatValidationMessage({ toolName: 'apply_refund', issues }).split('\n').slice(1);
    expect(lines).toEqual(issues.map((issue) => `- ${issue.message}`));
  });

  it('returns one shared frozen empty array when the arguments are valid', () => {
    const first = refund({ order_id: 'SO20260901', amount_cents: 1999, reason: 'arrived damaged' });
    const second = createRefund(validCreateRefund);
    expect(first).toEqual([]);
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('rejects missing fields using the missing field’s own description and example', () => {
    const issues = refund({ order_id: 'SO20260901' });
    expect(issues.map((issue) => [issue.path, issue.code])).toEqual([
      ['$.amount_cents', 'missing_field'],
      ['$.reason', 'missing_field'],
    ]);
    expect(issues[0]?.message).toMatchInlineSnapshot(
      `"\`amount_cents\`: this required field is missing. Expected an integer >= 1 (Refund amount in cents). Valid example: 1999. You sent nothing."`,
    );
  });

  it('rejects an unknown field, naming it and listing the allowed ones', () => {
    const issues = refund({ order_id: 'SO20260901', amount_cents: 5, reason: 'late', refund_all: true });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ path: '$.refund_all', code: 'unknown_field', layer: 'schema' });
    expect(issues[0]?.message).toMatchInlineSnapshot(
      `"\`refund_all\`: not a parameter of apply_refund; remove it. Allowed fields: \`order_id\`, \`amount_cents\`, \`reason\`. You sent the boolean true."`,
    );
  });

  it('rejects unknown fields inside nested objects, naming the object', () => {
    const args = { ...validCreateRefund, items: [{ sku: 'ABC-1234', quantity: 1, colour: 'red' }] };
    const [issue] = createRefund(args);
    expect(issue).toMatchObject({ path: '$.items[0].colour', code: 'unknown_field' });
    expect(issue?.message).toMatchInlineSnapshot(
      `"\`items[0].colour\`: not a field of \`items[0]\`; remove it. Allowed fields: \`sku\`, \`quantity\`. You sent the string "red"."`,
    );
  });

  it('rejects values deep in nested arrays of objects with their full JSONPath', () => {
    const args = {
      ...validCreateRefund,
      items: [{ sku: 'ABC-1234', quantity: 1 }, { sku: 'abc', quantity: 0 }, { quantity: '2' }],
    };
    const issues = createRefund(args);
    expect(issues.map((issue) => [issue.path, issue.code])).toEqual([
      ['$.items[1].sku', 'pattern_mismatch'],
      ['$.items[1].quantity', 'too_small'],
      ['$.items[2].sku', 'missing_field'],
      ['$.items[2].quantity', 'wrong_type'],
    ]);
    expect(formatValidationMessage({ toolName: 'create_refund', issues })).toMatchInlineSnapshot(`
      "The call to create_refund was not run: 4 problems with its arguments. Fix all of them and call create_refund again.
      - \`items[1].sku\`: expected a string matching ^[A-Z]{3}-\\d{4}$ (Stock keeping unit). Valid example: "ABC-1234". You sent the string "abc".
      - \`items[1].quantity\`: expected an integer >= 1 and <= 99 (How many units). Valid example: 1. You sent the number 0.
      - \`items[2].sku\`: this required field is missing. Expected a string matching ^[A-Z]{3}-\\d{4}$ (Stock keeping unit). Valid example: "ABC-1234". You sent nothing.
      - \`items[2].quantity\`: expected an integer >= 1 and <= 99 (How many units). Valid example: 1. You sent the string "2"."
    `);
  });

  it('rejects a value outside an enum, listing the allowed values', () => {
    const [issue] = createRefund({ ...validCreateRefund, reason: 'changed my mind' });
    expect(issue).toMatchObject({ path: '$.reason', code: 'invalid_enum', layer: 'semantic' });
    expect(issue?.message).toMatchInlineSnapshot(
      `"\`reason\`: expected one of the allowed values (Why the customer wants a refund). Allowed values: "damaged", "not_received", "wrong_item", "other". You sent the string "changed my mind"."`,
    );
  });

  it('rejects a value of the wrong type once, without its other keyword errors', () => {
    const issue = onlyIssue(objectOf({ count: { type: 'integer', minimum: 1, maximum: 5 } }), { count: -1.5 });
    expect(issue).toMatchObject({ path: '$.count', code: 'wrong_type' });
    expect(issue.message).toMatchInlineSnapshot(
      `"\`count\`: expected an integer >= 1 and <= 5. Valid example: 1. You sent the number -1.5."`,
    );
  });

  it('rejects a wrong type and reports nothing below it', () => {
    const [issue, ...rest] = createRefund({ ...validCreateRefund, items: { sku: 'ABC-1234', quantity: 1 } });
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({ path: '$.items', code: 'wrong_type' });
    expect(issue?.message).toMatchInlineSnapshot(
      `"\`items\`: expected an array of objects with 1 to 20 items (The order lines to refund). Valid example: [{"sku": "ABC-1234", "quantity": 1}]. You sent an object."`,
    );
  });

  it('rejects an anyOf mismatch with one no_matching_variant issue instead of every branch error', () => {
    const schema = objectOf(
      {
        customer: {
          description: 'The customer, by e-mail or by numeric id',
          anyOf: [{ $ref: '#/$defs/email' }, { type: 'integer', minimum: 1 }, { $ref: '#/$defs/person' }],
        },
      },
      {
        $defs: {
          email: { type: 'string', format: 'email' },
          person: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } },
        },
      },
    );
    for (const customer of ['not an e-mail', -4, { name: '' }, [1]]) {
      const issue = onlyIssue(schema, { customer });
      expect(issue).toMatchObject({ path: '$.customer', code: 'no_matching_variant', layer: 'schema' });
    }
    expect(onlyIssue(schema, { customer: { name: 7 } }).message).toMatchInlineSnapshot(
      `"\`customer\`: expected one of: an email address; an integer >= 1; or an object with the required field \`name\` (The customer, by e-mail or by numeric id). Valid example: "name@example.com". You sent an object."`,
    );
    expect(check(schema, { customer: 'ana@example.com' })).toEqual([]);
  });

  it('rejects a oneOf value that matches several variants', () => {
    const schema = objectOf({ size: { oneOf: [{ type: 'integer' }, { type: 'number', minimum: 0 }] } });
    const issue = onlyIssue(schema, { size: 3 });
    expect(issue).toMatchObject({ code: 'no_matching_variant' });
    expect(issue.message).toMatchInlineSnapshot(
      `"\`size\`: expected exactly one of these forms, but the value matches more than one: either an integer or a number >= 0. You sent the number 3."`,
    );
  });

  it('keeps sibling errors next to a collapsed anyOf', () => {
    const schema = objectOf(
      { id: { anyOf: [{ type: 'string' }, { type: 'integer' }] }, name: { type: 'string' } },
      { required: ['name'] },
    );
    const issues = check(schema, { id: true });
    expect(issues.map((issue) => [issue.path, issue.code])).toEqual([
      ['$.id', 'no_matching_variant'],
      ['$.name', 'missing_field'],
    ]);
  });

  it.each([
    ['too_large', objectOf({ n: { type: 'number', maximum: 10 } }), { n: 11 }],
    ['too_small', objectOf({ n: { type: 'number', exclusiveMinimum: 0 } }), { n: 0 }],
    ['not_multiple', objectOf({ n: { type: 'number', multipleOf: 0.5 } }), { n: 0.3 }],
    ['too_long', objectOf({ s: { type: 'string', maxLength: 3 } }), { s: 'abcd' }],
    ['too_short', objectOf({ s: { type: 'string', minLength: 3, maxLength: 8 } }), { s: 'ab' }],
    ['pattern_mismatch', objectOf({ s: { type: 'string', pattern: '^[a-z]+$' } }), { s: 'ABC' }],
    ['invalid_format', objectOf({ s: { type: 'string', format: 'date' } }), { s: '2026-13-45' }],
    ['invalid_const', objectOf({ s: { const: 'refund' } }), { s: 'return' }],
    ['invalid_enum', objectOf({ s: { enum: [1, 2, 'three', null] } }), { s: 4 }],
    ['too_few_items', objectOf({ a: { type: 'array', items: { type: 'string' }, minItems: 2 } }), { a: ['x'] }],
    ['too_many_items', objectOf({ a: { type: 'array', maxItems: 1 } }), { a: [1, 2] }],
    [
      'too_many_items',
      objectOf({ a: { type: 'array', prefixItems: [{ type: 'string' }], items: false } }),
      { a: ['x', 1] },
    ],
    ['duplicate_items', objectOf({ a: { type: 'array', uniqueItems: true } }), { a: [1, 2, 1] }],
    ['invalid_value', objectOf({ s: { not: { type: 'string' } } }), { s: 'x' }],
    ['invalid_value', objectOf({ a: { type: 'array', contains: { type: 'integer' } } }), { a: ['x', 'y'] }],
    [
      'too_small',
      objectOf({ d: { type: 'string', format: 'date', formatMinimum: '2026-01-01' } }),
      { d: '2025-12-31' },
    ],
  ] as const)('rejects with %s when the value breaks its keyword', (code, schema, args) => {
    const issue = onlyIssue(schema, args);
    expect(issue.code).toBe(code);
    expect(issue.message).toMatch(/^`[^`]+`: .+\.$/);
    expect(issue.message).toContain('You sent ');
  });

  it('words each keyword for the model', () => {
    const messages = [
      onlyIssue(objectOf({ n: { type: 'number', exclusiveMinimum: 0, maximum: 10 } }), { n: 0 }).message,
      onlyIssue(objectOf({ n: { type: 'number', multipleOf: 0.5 } }), { n: 0.3 }).message,
      onlyIssue(objectOf({ s: { type: 'string', minLength: 3, maxLength: 8 } }), { s: 'ab' }).message,
      onlyIssue(objectOf({ s: { type: 'string', format: 'date', description: 'Day of delivery' } }), { s: 'soon' })
        .message,
      onlyIssue(objectOf({ s: { const: 'refund' } }), { s: 'return' }).message,
      onlyIssue(objectOf({ a: { type: 'array', items: { type: 'string' }, minItems: 2 } }), { a: ['x'] }).message,
      onlyIssue(objectOf({ a: { type: 'array', uniqueItems: true, maxItems: 5 } }), { a: [1, 2, 1] }).message,
      onlyIssue(objectOf({ s: { type: ['string', 'null'], maxLength: 2 } }), { s: 7 }).message,
      onlyIssue(objectOf({ b: { type: 'boolean' } }), { b: 'yes' }).message,
    ];
    expect(messages).toMatchInlineSnapshot(`
      [
        "\`n\`: expected a number > 0 and <= 10. Valid example: 1. You sent the number 0.",
        "\`n\`: expected a number that is a multiple of 0.5. You sent the number 0.3.",
        "\`s\`: expected a string of 3 to 8 characters. You sent the string "ab".",
        "\`s\`: expected a date (Day of delivery). Valid example: "2026-09-01". You sent the string "soon".",
        "\`s\`: expected exactly "refund". Valid example: "refund". You sent the string "return".",
        "\`a\`: expected an array of strings with at least 2 items. You sent an array of 1 item.",
        "\`a\`: expected an array with at most 5 items, with no duplicate items. Items [0] and [2] are the same. You sent an array of 3 items.",
        "\`s\`: expected a string of at most 2 characters or null. You sent the number 7.",
        "\`b\`: expected true or false. You sent the string "yes".",
      ]
    `);
  });

  it('rejects with missing_field when a dependent field is absent', () => {
    const schema = objectOf(
      { card: { type: 'string' }, cvc: { type: 'string', pattern: '^\\d{3}$', examples: ['123'] } },
      { dependentRequired: { card: ['cvc'] } },
    );
    const issue = onlyIssue(schema, { card: '4111' });
    expect(issue).toMatchObject({ path: '$.cvc', code: 'missing_field' });
    expect(issue.message).toMatchInlineSnapshot(
      `"\`cvc\`: this field is required when \`card\` is given. Expected a string matching ^\\d{3}$. Valid example: "123". You sent nothing."`,
    );
  });

  it('rejects with unknown_field for unevaluated properties, false schemas and bad property names', () => {
    const unevaluated = objectOf(
      { a: { type: 'string' } },
      { allOf: [{ properties: { b: { type: 'string' } } }], unevaluatedProperties: false },
    );
    expect(onlyIssue(unevaluated, { a: 'x', z: 1 })).toMatchObject({ path: '$.z', code: 'unknown_field' });
    const forbidden = objectOf({ a: { type: 'string' }, internal: false });
    expect(onlyIssue(forbidden, { internal: 1 })).toMatchObject({ path: '$.internal', code: 'unknown_field' });
    const names = objectOf({}, { propertyNames: { pattern: '^[a-z_]+$' } });
    const issue = onlyIssue(names, { ok: 1, 'Not OK': 2 });
    expect(issue).toMatchObject({ path: '$["Not OK"]', code: 'unknown_field' });
    expect(issue.message).toMatchInlineSnapshot(
      `"\`["Not OK"]\`: this field name is not accepted: field names must be a string matching ^[a-z_]+$."`,
    );
  });

  it('rejects then-branch requirements from if/then without reporting the if itself', () => {
    const schema = objectOf(
      { method: { enum: ['card', 'cash'] }, card_number: { type: 'string', description: 'The card number' } },
      // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword under test.
      { if: { properties: { method: { const: 'card' } } }, then: { required: ['card_number'] } },
    );
    const issue = onlyIssue(schema, { method: 'card' });
    expect(issue).toMatchObject({ path: '$.card_number', code: 'missing_field' });
    expect(issue.message).toContain('The card number');
  });

  it('rejects a value under a $ref with the description of the field that references it', () => {
    const schema = objectOf(
      { status: { $ref: '#/$defs/status', description: 'Order status to filter by' } },
      { $defs: { status: { type: 'string', enum: ['open', 'shipped'] } } },
    );
    expect(onlyIssue(schema, { status: 'lost' }).message).toMatchInlineSnapshot(
      `"\`status\`: expected one of the allowed values (Order status to filter by). Allowed values: "open", "shipped". You sent the string "lost"."`,
    );
  });

  it('shows odd keys as bracketed JSONPath and cuts long received strings', () => {
    const schema = objectOf({ 'order id': { type: 'integer' } }, { additionalProperties: false });
    const issues = check(schema, { 'order id': 'x'.repeat(200), 'a`b': 1 });
    expect(issues.map((issue) => issue.path)).toEqual(['$["order id"]', '$["a`b"]']);
    expect(issues.map((issue) => issue.message)).toMatchInlineSnapshot(`
      [
        "\`["order id"]\`: expected an integer. You sent the string "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…" (200 characters, shortened here).",
        "\`["a'b"]\`: not a parameter of some_tool; remove it. Allowed fields: \`order id\`. You sent the number 1.",
      ]
    `);
  });

  it('describes what was sent for every kind of value', () => {
    const schema = objectOf({ v: { type: 'integer', examples: [3] } });
    const sent = [12.5, 'abc', '', null, true, {}, { a: 1 }, [], [1, 2, 3], [1]].map(
      (v) => onlyIssue(schema, { v }).message.split('You sent ')[1],
    );
    expect(sent).toMatchInlineSnapshot(`
      [
        "the number 12.5.",
        "the string "abc".",
        "an empty string "".",
        "null.",
        "the boolean true.",
        "an empty object {}.",
        "an object.",
        "an empty array [].",
        "an array of 3 items.",
        "an array of 1 item.",
      ]
    `);
  });

  it('rejects a non-object with wrong_type at $ when called directly', () => {
    const [issue] = refund([1, 2]);
    expect(issue).toMatchObject({ path: '$', code: 'wrong_type' });
    expect(issue?.message.startsWith('`apply_refund`: ')).toBe(true);
  });

  it('never words a message the way ajv does', () => {
    const issues = [
      ...refund({ order_id: 12345, amount_cents: -100, reason: '', extra: 1 }),
      ...createRefund({ items: [{}, { sku: 1, quantity: 100 }], reason: 'x', amount_cents: 2_000_000 }),
    ];
    expect(issues.length).toBeGreaterThan(5);
    for (const { message } of issues) {
      expect(message).not.toMatch(/must NOT|must have|must be|must match|#\/|schemaPath|instancePath/);
    }
  });

  it('rejects in Chinese with a space wherever Chinese meets ASCII', () => {
    const schema = objectOf({
      id: {
        description: '客户编号或邮箱',
        anyOf: [
          { type: 'string', format: 'email' },
          { type: 'integer', minimum: 1 },
        ],
      },
      tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3, uniqueItems: true },
      when: { type: ['string', 'null'], format: 'date' },
      note: { type: 'string', minLength: 1 },
    });
    const validate = compileToolValidator({ schema, toolName: 'tag_customer', locale: 'zh-CN' });
    const issues = validate({ id: 'nope', tags: ['a', 'a', 'b', 'c'], when: 5, note: null });
    expect(formatValidationMessage({ toolName: 'tag_customer', issues, locale: 'zh-CN' })).toMatchInlineSnapshot(`
      "调用 tag_customer 未执行：参数有 4 处问题。请一次改正全部问题后重新调用 tag_customer。
      - \`id\`：需要以下形式之一：电子邮件地址；大于等于 1 的整数（客户编号或邮箱）。合法示例："name@example.com"。你传的是字符串 "nope"。
      - \`tags\`：需要 1 到 3 项、元素不重复的字符串数组。你传的是包含 4 项的数组。
      - \`when\`：需要日期或 null。合法示例："2026-09-01"。你传的是数字 5。
      - \`note\`：需要非空字符串。你传的是 null。"
    `);
  });

  it('reports what each call sent, not what an earlier call at the same place sent', () => {
    const amounts = [-1, -2, 0].map((amount_cents) => refund({ order_id: 'SO20260901', amount_cents, reason: 'x' }));
    expect(amounts.map((issues) => issues[0]?.message.split('You sent ')[1])).toEqual([
      'the number -1.',
      'the number -2.',
      'the number 0.',
    ]);
  });

  it('keeps array indexes and numeric object keys apart when both reach the same schema', () => {
    const schema = objectOf(
      {
        data: {
          type: ['array', 'object'],
          items: { $ref: '#/$defs/count' },
          additionalProperties: { $ref: '#/$defs/count' },
        },
      },
      { $defs: { count: { type: 'integer' } } },
    );
    const validate = compileToolValidator({ schema, toolName: 'some_tool' });
    expect(validate({ data: ['x'] })[0]?.path).toBe('$.data[0]');
    expect(validate({ data: { 0: 'x' } })[0]?.path).toBe('$.data["0"]');
    expect(validate({ data: ['y'] })[0]?.path).toBe('$.data[0]');
  });

  it('keeps array indexes and numeric object keys apart when fields below them fail', () => {
    const schema = objectOf(
      {
        data: {
          type: ['array', 'object'],
          items: { $ref: '#/$defs/line' },
          additionalProperties: { $ref: '#/$defs/line' },
        },
      },
      { $defs: { line: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] } } },
    );
    const validate = compileToolValidator({ schema, toolName: 'some_tool' });
    const paths = (args: unknown) => validate(args).map((issue) => issue.path);
    expect(paths({ data: [{ sku: 1 }, {}] })).toEqual(['$.data[0].sku', '$.data[1].sku']);
    expect(paths({ data: { 0: { sku: 1 }, 1: {} } })).toEqual(['$.data["0"].sku', '$.data["1"].sku']);
    expect(paths({ data: [{ sku: 2 }, {}] })).toEqual(['$.data[0].sku', '$.data[1].sku']);
  });

  it('rejects thousands of unknown fields without trouble, one issue each', () => {
    const args = Object.fromEntries(Array.from({ length: 3000 }, (_, index) => [`extra_${index}`, index]));
    const issues = refund({ order_id: 'SO20260901', amount_cents: 1, reason: 'x', ...args });
    expect(issues).toHaveLength(3000);
    expect(new Set(issues.map((issue) => issue.path)).size).toBe(3000);
    expect(formatValidationMessage({ toolName: 'apply_refund', issues }).split('\n')).toHaveLength(22);
  });

  it('escapes quotes, newlines and lone surrogates in what was sent', () => {
    const [issue] = refund({ order_id: 'say "hi"\n\ud800', amount_cents: 1, reason: 'x' });
    expect(issue?.message).toContain('You sent the string "say \\"hi\\"\\n\\ud800".');
  });

  it('works with an ajv instance that is not verbose', () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const validate = compileToolValidator({ schema: applyRefundSchema, toolName: 'apply_refund', ajv });
    const plain = validate({ order_id: 12345, amount_cents: -100, reason: '' });
    expect(plain).toEqual(refund({ order_id: 12345, amount_cents: -100, reason: '' }));
  });

  it('throws ToolDefinitionError when the root is not an object schema', () => {
    expect(() => compileToolValidator({ schema: { type: 'string' }, toolName: 'bad' })).toThrow(ToolDefinitionError);
    expect(() => compileToolValidator({ schema: { properties: {} }, toolName: 'bad' })).toThrow(/"type": "object"/);
  });

  it('throws ToolDefinitionError when the schema is not valid JSON Schema 2020-12', () => {
    const broken = () => compileToolValidator({ schema: objectOf({ a: { type: 'strin' } }), toolName: 'broken' });
    expect(broken).toThrow(ToolDefinitionError);
    expect(broken).toThrow(/tool "broken": parameters are not a valid JSON Schema 2020-12/);
    const draft7 = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' };
    expect(() => compileToolValidator({ schema: draft7, toolName: 'old' })).toThrow(ToolDefinitionError);
    try {
      compileToolValidator({ schema: objectOf({ a: { minimum: 'one' } }), toolName: 'broken' });
    } catch (error) {
      expect(ToolDefinitionError.isInstance(error) && error.toolName).toBe('broken');
    }
  });

  it('compiles two schemas with the same $id on the default instance', () => {
    const first = objectOf({ a: { type: 'string' } }, { $id: 'https://example.com/tool' });
    const second = objectOf({ a: { type: 'integer' } }, { $id: 'https://example.com/tool' });
    expect(check(first, { a: 'x' })).toEqual([]);
    expect(check(second, { a: 1 })).toEqual([]);
  });

  it('reuses a given ajv instance, compiling each schema once', () => {
    const ajv = createAjv();
    const schema = { ...applyRefundSchema, $id: 'https://example.com/apply_refund' };
    const en = compileToolValidator({ schema, toolName: 'apply_refund', ajv });
    const zh = compileToolValidator({ schema, toolName: 'apply_refund', ajv, locale: 'zh-CN' });
    expect(ajv.getSchema('https://example.com/apply_refund')).toBeTypeOf('function');
    expect(en({ order_id: 1 })[0]?.message).toContain('You sent the number 1.');
    expect(zh({ order_id: 1 })[0]?.message).toContain('你传的是数字 1。');
  });
});

describe('compileToolValidator on real-world schemas', () => {
  const searchFlights: JsonSchema = {
    type: 'object',
    properties: {
      origin: { type: 'string', pattern: '^[A-Z]{3}$', description: 'IATA airport code', examples: ['SFO'] },
      destination: { type: 'string', pattern: '^[A-Z]{3}$' },
      depart_on: { type: 'string', format: 'date' },
      return_on: { type: ['string', 'null'], format: 'date', default: null },
      cabin: { type: 'string', enum: ['economy', 'premium', 'business', 'first'], default: 'economy' },
      passengers: {
        type: 'object',
        properties: {
          adults: { type: 'integer', minimum: 1, maximum: 9 },
          children: { type: 'integer', minimum: 0, maximum: 8 },
          infants_ages: { type: 'array', items: { type: 'integer', minimum: 0, maximum: 1 } },
        },
        required: ['adults'],
      },
      max_price: { type: 'number', exclusiveMinimum: 0 },
      'x-vendor': { type: 'string' },
    },
    required: ['origin', 'destination', 'depart_on'],
    'x-openai-strict': false,
  };

  const createInvoice: JsonSchema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    title: 'CreateInvoice',
    properties: {
      customer: { $ref: '#/$defs/Customer' },
      currency: { type: 'string', enum: ['EUR', 'USD', 'CNY'] },
      lines: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          properties: {
            description: { type: 'string', minLength: 1 },
            quantity: { type: 'number', exclusiveMinimum: 0 },
            unit_price: { type: 'string', pattern: '^\\d+(\\.\\d{1,2})?$' },
            taxes: {
              type: 'array',
              items: {
                type: 'object',
                properties: { name: { type: 'string' }, rate: { type: 'number', minimum: 0, maximum: 1 } },
                required: ['name', 'rate'],
                additionalProperties: false,
              },
            },
            discount: { anyOf: [{ type: 'number', minimum: 0 }, { type: 'null' }], default: null },
          },
          required: ['description', 'quantity', 'unit_price'],
        },
      },
      due: { type: 'string', format: 'date-time' },
      tags: { type: 'array', items: { type: 'string' }, uniqueItems: true },
      category: { $ref: '#/$defs/Category' },
    },
    required: ['customer', 'currency', 'lines'],
    additionalProperties: false,
    $defs: {
      Customer: {
        type: 'object',
        title: 'Customer',
        properties: {
          id: { anyOf: [{ type: 'string', pattern: '^C\\d+$' }, { type: 'integer' }] },
          email: { type: 'string', format: 'email' },
          address: { type: 'object', properties: { country: { type: 'string', minLength: 2, maxLength: 2 } } },
        },
        required: ['id'],
      },
      Category: {
        type: 'object',
        properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Category' } } },
        required: ['name'],
      },
    },
  };

  const flights = compileToolValidator({ schema: searchFlights, toolName: 'search_flights' });
  const invoice = compileToolValidator({ schema: createInvoice, toolName: 'create_invoice' });

  it.each([
    { origin: 'SFO', destination: 'PEK', depart_on: '2026-09-01' },
    {
      origin: 'SFO',
      destination: 'PEK',
      depart_on: '2026-09-01',
      return_on: null,
      cabin: 'business',
      passengers: { adults: 2, infants_ages: [0, 1] },
      max_price: 1200.5,
      'x-vendor': 'acme',
      unlisted: 'allowed: no additionalProperties',
    },
  ])('accepts valid flight searches (%#)', (args) => {
    expect(flights(args)).toEqual([]);
  });

  it.each([
    { customer: { id: 'C17' }, currency: 'EUR', lines: [{ description: 'Tea', quantity: 2, unit_price: '3.50' }] },
    {
      customer: { id: 17, email: 'ana@example.com', address: { country: 'CN' } },
      currency: 'CNY',
      lines: [
        {
          description: 'Tea',
          quantity: 0.5,
          unit_price: '120',
          taxes: [{ name: 'VAT', rate: 0.13 }],
          discount: null,
          extra_notes: 'allowed: lines take other fields',
        },
        { description: 'Cup', quantity: 1, unit_price: '9.99', discount: 1 },
      ],
      due: '2026-09-30T12:00:00Z',
      tags: ['b2b', 'tea'],
      category: { name: 'Food', children: [{ name: 'Drinks', children: [{ name: 'Tea' }] }] },
    },
  ])('accepts valid invoices with nested arrays, refs and recursion (%#)', (args) => {
    expect(invoice(args)).toEqual([]);
  });

  it('rejects invoice mistakes deep in nested arrays and recursive refs', () => {
    const issues = invoice({
      customer: { id: 'X9' },
      currency: 'EUR',
      lines: [{ description: 'Tea', quantity: 1, unit_price: '1', taxes: [{ name: 'VAT', rate: 13 }] }],
      category: { name: 'Food', children: [{ children: [] }] },
    });
    expect(issues.map((issue) => [issue.path, issue.code])).toEqual([
      ['$.customer.id', 'no_matching_variant'],
      ['$.lines[0].taxes[0].rate', 'too_large'],
      ['$.category.children[0].name', 'missing_field'],
    ]);
  });
});
