import { describe, expect, it } from 'vitest';
import { formatValidationMessage } from './format-validation-message.js';
import { unknownToolIssue } from './unknown-tool-issue.js';

const available = ['query_order', 'apply_refund', 'track_shipment'];

describe('unknownToolIssue', () => {
  it('rejects an unknown tool, listing the available ones and the closest name', () => {
    const issue = unknownToolIssue({ name: 'refund_apply', available });
    expect(issue).toMatchObject({ path: '$', code: 'unknown_tool', layer: 'call' });
    expect(issue.message).toMatchInlineSnapshot(
      `"\`refund_apply\`: there is no tool with this name. Available tools: query_order, apply_refund, track_shipment. Did you mean apply_refund?"`,
    );
  });

  it('rejects a typo with a suggestion and a far-off name without one', () => {
    expect(unknownToolIssue({ name: 'track_shipmnet', available }).message).toContain('Did you mean track_shipment?');
    expect(unknownToolIssue({ name: 'delete_everything', available }).message).not.toContain('Did you mean');
  });

  it('names the few tools that hold every word of a name too short to be a typo of one', () => {
    const shop = ['query_order', 'track_shipment', 'query_refund', 'add_order_note', 'apply_refund'];
    // What Qwen2.5-Coder-0.5B called for "refund it in full" (2026-12-07).
    expect(unknownToolIssue({ name: 'refund', available: shop }).message).toContain(
      'Did you mean query_refund or apply_refund?',
    );
    expect(unknownToolIssue({ name: 'Refund', available: shop, locale: 'zh-CN' }).message).toContain(
      '你是不是想调用 query_refund 或 apply_refund？',
    );
    expect(unknownToolIssue({ name: 'shipment', available: shop }).message).toContain('Did you mean track_shipment?');
    // Held by more than three names, or a word too short to point anywhere: no guess.
    const many = ['query_order', 'cancel_order', 'add_order_note', 'order_history', 'apply_refund'];
    expect(unknownToolIssue({ name: 'order', available: many }).message).not.toContain('Did you mean');
    expect(unknownToolIssue({ name: 'to_do', available: ['to_do_list', 'add_to_do'] }).message).not.toContain(
      'Did you mean',
    );
    // A word no tool holds, and a hostile length: none either.
    expect(unknownToolIssue({ name: 'teleport', available: shop }).message).not.toContain('Did you mean');
    expect(unknownToolIssue({ name: 'refund_'.repeat(20), available: shop }).message).not.toContain('Did you mean');
  });

  it('rejects in Chinese when the locale is zh-CN', () => {
    expect(unknownToolIssue({ name: 'query_ordr', available, locale: 'zh-CN' }).message).toMatchInlineSnapshot(
      `"\`query_ordr\`：没有这个名字的工具。可用工具：query_order, apply_refund, track_shipment。你是不是想调用 query_order？"`,
    );
  });

  it('rejects when no tools are mounted at all', () => {
    expect(unknownToolIssue({ name: 'query_order', available: [] }).message).toContain(
      'No tools are available at this point.',
    );
  });

  it('quotes and cuts a name that does not look like a tool name', () => {
    const issue = unknownToolIssue({ name: `run\`this\`\n${'x'.repeat(100)}`, available });
    expect(issue.message.split('\n')).toHaveLength(1);
    expect(issue.message).toMatch(/^`"run'this'\\nx+…"`: there is no tool/);
  });

  it('formats into a one-problem message about the call', () => {
    const issue = unknownToolIssue({ name: 'refund_apply', available });
    expect(formatValidationMessage({ toolName: 'refund_apply', issues: [issue] })).toMatchInlineSnapshot(`
      "The call to refund_apply was not run: 1 problem with the call. Use one of the available tools instead.
      - \`refund_apply\`: there is no tool with this name. Available tools: query_order, apply_refund, track_shipment. Did you mean apply_refund?"
    `);
  });
});
