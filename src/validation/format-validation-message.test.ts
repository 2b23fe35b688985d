import { describe, expect, it } from 'vitest';
import { compileToolValidator } from './compile-tool-validator.js';
import { formatValidationMessage } from './format-validation-message.js';
import { applyRefundSchema } from './test-support/index.js';
import type { ValidationIssue } from './validation-issue.js';

const refund = compileToolValidator({ schema: applyRefundSchema, toolName: 'apply_refund' });

describe('formatValidationMessage', () => {
  it('rejects with a singular header when there is one problem', () => {
    const issues = refund({ order_id: 'SO123', amount_cents: 100, reason: 'late' });
    expect(formatValidationMessage({ toolName: 'apply_refund', issues })).toMatchInlineSnapshot(`
      "The call to apply_refund was not run: 1 problem with its arguments. Fix it and call apply_refund again.
      - \`order_id\`: expected a string matching ^SO\\d{8}$ (Order number: SO followed by 8 digits). Valid example: "SO20260901". You sent the string "SO123"."
    `);
    const zh = compileToolValidator({ schema: applyRefundSchema, toolName: 'apply_refund', locale: 'zh-CN' });
    const zhIssues = zh({ order_id: 'SO123', amount_cents: 100, reason: 'late' });
    expect(
      formatValidationMessage({ toolName: 'apply_refund', issues: zhIssues, locale: 'zh-CN' }),
    ).toMatchInlineSnapshot(`
      "调用 apply_refund 未执行：参数有 1 处问题。请改正后重新调用 apply_refund。
      - \`order_id\`：需要匹配 ^SO\\d{8}$ 的字符串（Order number: SO followed by 8 digits）。合法示例："SO20260901"。你传的是字符串 "SO123"。"
    `);
  });

  it('lists the first twenty issues and counts the rest when there are many', () => {
    const issues: ValidationIssue[] = Array.from({ length: 23 }, (_, index) => ({
      path: `$.field_${index}`,
      code: 'unknown_field',
      layer: 'schema',
      message: `\`field_${index}\`: not a parameter of apply_refund; remove it.`,
    }));
    const lines = formatValidationMessage({ toolName: 'apply_refund', issues }).split('\n');
    expect(lines).toHaveLength(22);
    expect(lines[0]).toContain('23 problems');
    expect(lines.at(-1)).toMatchInlineSnapshot(
      `"(3 more problems not listed here: fix the ones above and call again to see the rest.)"`,
    );
  });

  it('keeps every issue on one line so each starts with "- `field`"', () => {
    const issues = refund({ order_id: 'line one\nline two', amount_cents: '\n    at x (/src/a.ts:1:1)', reason: '' });
    const lines = formatValidationMessage({ toolName: 'apply_refund', issues }).split('\n');
    expect(lines).toHaveLength(4);
    for (const line of lines.slice(1)) expect(line).toMatch(/^- `[^`]+`: /);
  });
});
