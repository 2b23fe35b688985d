import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../core/json-schema.js';
import { parseToolArguments } from './parse-tool-arguments.js';
import { applyRefundSchema, createRefundSchema } from './test-support/index.js';

const parse = (raw: string, schema: JsonSchema = applyRefundSchema) =>
  parseToolArguments({ toolName: 'apply_refund', raw, schema });

function issueOf(result: ReturnType<typeof parseToolArguments>) {
  if (result.ok) throw new Error('expected the arguments to be refused');
  return result.issue;
}

describe('parseToolArguments', () => {
  it('accepts an empty or blank string as no arguments', () => {
    for (const raw of ['', '   ', '\n\t ']) expect(parse(raw)).toEqual({ ok: true, value: {} });
  });

  it('accepts a JSON object, keeping prototype-looking keys as plain data', () => {
    const result = parse('{"order_id": "SO20260901", "__proto__": {"admin": true}, "constructor": 1}');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(Object.keys(result.value)).toEqual(['order_id', '__proto__', 'constructor']);
    expect(Object.getPrototypeOf(result.value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['admin']).toBeUndefined();
  });

  it('rejects with invalid_json and an example object built from the schema when the JSON is cut off', () => {
    const issue = issueOf(parse('{"order_id": "SO2026'));
    expect(issue).toMatchObject({ path: '$', code: 'invalid_json', layer: 'call' });
    expect(issue.message).toMatchInlineSnapshot(
      `"\`apply_refund\`: the arguments are not valid JSON. Send one JSON object with the arguments as fields (required: \`order_id\`, \`amount_cents\`, \`reason\`). Valid example: {"order_id": "SO20260901", "amount_cents": 1999, "reason": "arrived damaged"}. You sent the text "{\\"order_id\\": \\"SO2026"."`,
    );
  });

  it('rejects with invalid_json in Chinese when the locale is zh-CN', () => {
    const result = parseToolArguments({
      toolName: 'apply_refund',
      raw: "{order_id: 'SO20260901'}",
      schema: applyRefundSchema,
      locale: 'zh-CN',
    });
    expect(issueOf(result).message).toMatchInlineSnapshot(
      `"\`apply_refund\`：参数不是合法的 JSON。请传一个 JSON 对象，每个参数作为一个字段（必填：\`order_id\`、\`amount_cents\`、\`reason\`）。合法示例：{"order_id": "SO20260901", "amount_cents": 1999, "reason": "arrived damaged"}。你传的是文本 "{order_id: 'SO20260901'}"。"`,
    );
  });

  it('rejects with invalid_json and cuts the echo when the text is long', () => {
    const issue = issueOf(parse(`{"reason": "${'blah '.repeat(100)}`));
    expect(issue.code).toBe('invalid_json');
    expect(issue.message).toContain('(512 characters, shortened here)');
    expect(issue.message.length).toBeLessThan(500);
  });

  it('rejects with not_an_object when the JSON is an array, a number, a string or null', () => {
    const received = ['[1, 2, 3]', '42', '"SO20260901"', 'null', 'true'].map((raw) => {
      const issue = issueOf(parse(raw));
      expect(issue).toMatchObject({ path: '$', code: 'not_an_object', layer: 'call' });
      return issue.message.split('You sent ')[1];
    });
    expect(received).toMatchInlineSnapshot(`
      [
        "an array of 3 items.",
        "the number 42.",
        "the string "SO20260901".",
        "null.",
        "the boolean true.",
      ]
    `);
  });

  it('rejects with not_an_object showing an example with nested required fields', () => {
    const issue = issueOf(
      parseToolArguments({ toolName: 'create_refund', raw: '"refund it"', schema: createRefundSchema }),
    );
    expect(issue.message).toMatchInlineSnapshot(
      `"\`create_refund\`: expected one JSON object with the arguments as fields (required: \`order_id\`, \`amount_cents\`, \`reason\`, \`items\`). Valid example: {"order_id": "SO20260901", "amount_cents": 1999, "reason": "damaged", "items": [{"sku": "ABC-1234", "quantity": 1}]}. You sent the string "refund it"."`,
    );
  });

  it('shows the optional fields that have examples when nothing is required', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: {
        query: { type: 'string', examples: ['blue kettle'] },
        limit: { type: 'integer', minimum: 1, default: 10 },
        cursor: { type: 'string' },
      },
    };
    const issue = issueOf(parseToolArguments({ toolName: 'search', raw: 'blue kettle', schema }));
    expect(issue.message).toContain('Valid example: {"query": "blue kettle", "limit": 10}.');
  });
});
