import { describe, expect, it } from 'vitest';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { applyRefundSchema } from './test-support/index.js';
import { validateToolCall } from './validate-tool-call.js';

const registry = new ToolRegistry()
  .register(
    defineTool({
      name: 'apply_refund',
      description: 'Refund an order.',
      parameters: applyRefundSchema,
      sideEffect: 'irreversible',
      execute: () => ({ refunded: true }),
    }),
  )
  .register(
    defineTool({
      name: 'query_order',
      description: 'Look an order up.',
      parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
      sideEffect: 'read',
      execute: () => ({ status: 'shipped' }),
    }),
  );

/** The message of a refused call, failing the test when the call is accepted. */
function refusal(name: string, rawArguments: string, locale?: 'en' | 'zh-CN'): string {
  const checked = validateToolCall({ registry, name, rawArguments, ...(locale === undefined ? {} : { locale }) });
  if (checked.ok) throw new Error('expected the call to be refused');
  return checked.message;
}

describe('validateToolCall', () => {
  it('accepts a call whose arguments satisfy the schema', () => {
    const checked = validateToolCall({
      registry,
      name: 'apply_refund',
      rawArguments: '{"order_id": "SO20260901", "amount_cents": 1999, "reason": "arrived damaged"}',
    });
    expect(checked.ok).toBe(true);
  });

  it('rejects a call to an unknown tool with a header and one issue line', () => {
    expect(refusal('refund_apply', '{}')).toMatchInlineSnapshot(`
      "The call to refund_apply was not run: 1 problem with the call. Use one of the available tools instead.
      - \`refund_apply\`: there is no tool with this name. Available tools: apply_refund, query_order. Did you mean apply_refund?"
    `);
    expect(refusal('refund_apply', '{}', 'zh-CN')).toMatchInlineSnapshot(`
      "调用 refund_apply 未执行：调用有 1 处问题。请改用可用的工具。
      - \`refund_apply\`：没有这个名字的工具。可用工具：apply_refund, query_order。你是不是想调用 apply_refund？"
    `);
  });

  it('rejects arguments that are not JSON with a header and one issue line', () => {
    expect(refusal('apply_refund', '{"order_id": "SO2026')).toMatchInlineSnapshot(`
      "The call to apply_refund was not run: 1 problem with its arguments. Fix it and call apply_refund again.
      - \`apply_refund\`: the arguments are not valid JSON. Send one JSON object with the arguments as fields (required: \`order_id\`, \`amount_cents\`, \`reason\`). Valid example: {"order_id": "SO20260901", "amount_cents": 1999, "reason": "arrived damaged"}. You sent the text "{\\"order_id\\": \\"SO2026"."
    `);
  });

  it('rejects arguments that are not an object with a header and one issue line', () => {
    expect(refusal('apply_refund', '[1, 2]')).toMatchInlineSnapshot(`
      "The call to apply_refund was not run: 1 problem with its arguments. Fix it and call apply_refund again.
      - \`apply_refund\`: expected one JSON object with the arguments as fields (required: \`order_id\`, \`amount_cents\`, \`reason\`). Valid example: {"order_id": "SO20260901", "amount_cents": 1999, "reason": "arrived damaged"}. You sent an array of 2 items."
    `);
  });

  it('gives every refusal the same shape: a header line, then "- `field`: …" lines', () => {
    const messages = [
      refusal('refund_apply', '{}'),
      refusal('apply_refund', 'not json'),
      refusal('apply_refund', '"text"'),
      refusal('apply_refund', '{"order_id": 12345}'),
    ];
    for (const message of messages) {
      const [header, ...lines] = message.split('\n');
      expect(header).toMatch(/^The call to \S+ was not run: \d+ problems? with /);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(line).toMatch(/^- `[^`]+`: /);
    }
  });
});
